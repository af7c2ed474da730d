// Live preview of a template being edited: posts the body (or, in the block mode, the block document) and the sample
// values to /console/templates/preview as the user types, and shows the HTML in the sandboxed frame or the error with its line and column.
(function () {
  'use strict';
  function setUp() {
    var form = document.querySelector('form[data-template-editor]');
    if (!form) return;
    var frame = document.getElementById('tpl-preview');
    var problem = document.getElementById('tpl-problem');
    var timer = null;
    function refresh() {
      var data = new window.URLSearchParams();
      data.set('body', form.elements.body.value);
      data.set('sample', form.elements.sample.value);
      var mode = form.querySelector('input[name=editor_mode]:checked');
      if (mode && mode.value === 'blocks') {
        data.set('editor_mode', 'blocks');
        data.set('content_blocks', form.elements.content_blocks.value);
      }
      window
        .fetch('/console/templates/preview', {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-csrf-token': form.elements._csrf.value,
          },
          body: data.toString(),
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
            frame.srcdoc = answer.html;
          }
        });
    }
    form.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 300);
    });
    refresh();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
