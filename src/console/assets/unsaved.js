// Asks before leaving an editor with unsaved changes. An editor is a form marked data-unsaved: changing one of its
// fields (other than those marked data-unsaved-ignore) arms a beforeunload prompt, and submitting the form to this
// window (saving) disarms it. A page the server drew with changes not yet saved (data-unsaved="dirty", such as the form
// builder after adding a field) starts armed. Submits aimed at another frame (the builder's live preview) change nothing.
(function () {
  'use strict';
  var dirty = false;
  function setUp() {
    var forms = document.querySelectorAll('form[data-unsaved]');
    forms.forEach(function (form) {
      if (form.getAttribute('data-unsaved') === 'dirty') dirty = true;
      var mark = function (event) {
        var field = event.target;
        if (field instanceof Element && field.closest('[data-unsaved-ignore]')) return;
        dirty = true;
      };
      form.addEventListener('input', mark);
      form.addEventListener('change', mark);
      form.addEventListener('submit', function (event) {
        var submitter = event.submitter;
        var target = (submitter && submitter.getAttribute('formtarget')) || form.getAttribute('target') || '';
        if (target && target !== '_self') return;
        dirty = false;
      });
    });
    if (forms.length === 0) return;
    window.addEventListener('beforeunload', function (event) {
      if (!dirty) return;
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
