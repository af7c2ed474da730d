// Live preview of a template being edited: posts the body (or, in the block mode, the block document) and the sample
// values to /console/templates/preview as the user types and shows the error with its line and column; when there is
// none, posts the same into the frame from /console/templates/preview.html, which carries the frame's own policy (a
// srcdoc frame would take the console's, which drops the email's inline styles). The sample values are kept for the
// tab's session, so they are still there after a save.
(function () {
  'use strict';
  var SAMPLE_KEY = 'sealpost.template-sample';
  function setUp() {
    var form = document.querySelector('form[data-template-editor]');
    if (!form) return;
    var problem = document.getElementById('tpl-problem');
    var sample = form.elements.sample;
    var timer = null;
    var kept = window.sessionStorage.getItem(SAMPLE_KEY);
    if (kept) sample.value = kept;
    var frameForm = document.createElement('form');
    frameForm.method = 'post';
    frameForm.action = '/console/templates/preview.html';
    frameForm.target = 'tpl-preview';
    frameForm.hidden = true;
    document.body.appendChild(frameForm);
    function fields() {
      var data = { _csrf: form.elements._csrf.value, body: form.elements.body.value, sample: sample.value };
      var mode = form.querySelector('input[name=editor_mode]:checked');
      if (mode && mode.value === 'blocks') {
        data.editor_mode = 'blocks';
        data.content_blocks = form.elements.content_blocks.value;
      }
      return data;
    }
    function showInFrame(data) {
      frameForm.replaceChildren();
      Object.keys(data).forEach(function (name) {
        var input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = data[name];
        frameForm.appendChild(input);
      });
      frameForm.submit();
    }
    function refresh() {
      var data = fields();
      window
        .fetch('/console/templates/preview', {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-csrf-token': data._csrf,
          },
          body: new window.URLSearchParams(data).toString(),
          credentials: 'same-origin',
        })
        .then(function (res) {
          return res.json();
        })
        .then(function (answer) {
          if (answer.problem) {
            var p = answer.problem;
            problem.textContent = p.line
              ? 'Line ' + p.line + ', column ' + p.column + ': ' + p.message
              : p.message;
          } else {
            problem.textContent = '';
            showInFrame(data);
          }
        });
    }
    form.addEventListener('input', function (event) {
      if (event.target === sample) window.sessionStorage.setItem(SAMPLE_KEY, sample.value);
      clearTimeout(timer);
      timer = setTimeout(refresh, 300);
    });
    refresh();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
