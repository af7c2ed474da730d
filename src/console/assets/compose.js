// The personalisation menu of the compose form: shows an Insert button beside each field, which puts the field where
// the cursor was in the subject, HTML or text (the HTML when none was used yet). Without JavaScript the menu is a list.
(function () {
  'use strict';
  function setUp() {
    var form = document.querySelector('form[data-compose]');
    if (!form) return;
    var target = form.elements.html_part;
    ['subject', 'html_part', 'text_part'].forEach(function (name) {
      var el = form.elements[name];
      if (el)
        el.addEventListener('focus', function () {
          target = el;
        });
    });
    var buttons = form.querySelectorAll('button[data-insert]');
    Array.prototype.forEach.call(buttons, function (b) {
      b.hidden = false;
      b.setAttribute('aria-label', 'Insert ' + b.getAttribute('data-insert'));
      b.addEventListener('click', function () {
        var text = b.getAttribute('data-insert');
        var start = target.selectionStart == null ? target.value.length : target.selectionStart;
        var end = target.selectionEnd == null ? start : target.selectionEnd;
        target.value = target.value.slice(0, start) + text + target.value.slice(end);
        target.focus();
        target.setSelectionRange(start + text.length, start + text.length);
      });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
