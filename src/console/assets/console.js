// Small enhancements of server-rendered console pages; every page works without them.
(function () {
  'use strict';
  // A button with data-copy="<element id>" copies that element's text.
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () {
        button.textContent = label;
      }, 1500);
    });
  });
  // A form with data-confirm="question" asks before it is sent.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var question = form instanceof HTMLFormElement ? form.getAttribute('data-confirm') : null;
    if (question && !window.confirm(question)) event.preventDefault();
  });
  // A select with data-autosubmit sends its form when it changes.
  document.addEventListener('change', function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute('data-autosubmit') && el.form)
      el.form.requestSubmit();
  });
  // Copy buttons are shown only where copying works.
  if (navigator.clipboard) document.documentElement.classList.add('can-copy');
})();
