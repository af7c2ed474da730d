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
  // A form with data-confirm="question" asks before it is sent; one with data-once is sent once (its buttons are
  // disabled after the first submit; the server refuses a repeat anyway).
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) return event.preventDefault();
    if (!form.hasAttribute('data-once')) return;
    if (form.getAttribute('data-sent')) return event.preventDefault();
    form.setAttribute('data-sent', '1');
    setTimeout(function () {
      form.querySelectorAll('button').forEach(function (b) {
        b.disabled = true;
      });
    }, 0);
  });
  // Times are typed and shown in the browser's own time zone.
  var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone) {
    document.querySelectorAll('input[data-time-zone]').forEach(function (el) {
      el.value = zone;
    });
    document.querySelectorAll('[data-time-zone-name]').forEach(function (el) {
      el.textContent = zone;
    });
  }
  // A select with data-autosubmit sends its form when it changes.
  document.addEventListener('change', function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute('data-autosubmit') && el.form)
      el.form.requestSubmit();
  });
  // Copy buttons are shown only where copying works.
  if (navigator.clipboard) document.documentElement.classList.add('can-copy');
})();
