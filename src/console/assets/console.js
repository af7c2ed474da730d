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
    // Pages that only show times (the audit trail) read the zone from this cookie.
    var tzCookie = 'sealpost_tz=' + encodeURIComponent(zone);
    if (document.cookie.split('; ').indexOf(tzCookie) < 0)
      document.cookie = tzCookie + '; path=/console; max-age=31536000; SameSite=Lax';
  }
  // A select with data-autosubmit sends its form when it changes.
  document.addEventListener('change', function (event) {
    var el = event.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute('data-autosubmit') && el.form)
      el.form.requestSubmit();
  });
  // Copy buttons are shown only where copying works.
  if (navigator.clipboard) document.documentElement.classList.add('can-copy');
  // A minute before the idle timeout ends the session (half the timeout when it is shorter), offer to stay signed in.
  var idle = Number(document.body.getAttribute('data-idle-seconds'));
  if (idle > 0 && window.fetch) {
    var lead = Math.min(60, idle / 2);
    var warnTimer;
    var box;
    var schedule = function () {
      clearTimeout(warnTimer);
      warnTimer = setTimeout(warn, (idle - lead) * 1000);
    };
    var stay = function () {
      var csrf = document.querySelector('input[name="_csrf"]');
      window
        .fetch('/console/session/keep-alive', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'x-csrf-token': csrf ? csrf.value : '' },
        })
        .then(function (res) {
          if (!res.ok) return;
          box.hidden = true;
          schedule();
        });
    };
    var warn = function () {
      if (!box) {
        box = document.createElement('div');
        box.className = 'idle-warning';
        box.setAttribute('role', 'alertdialog');
        box.setAttribute('aria-label', 'Your session is ending');
        var text = document.createElement('p');
        text.textContent =
          'You will be signed out in ' +
          (lead >= 60 ? 'one minute' : Math.round(lead) + ' seconds') +
          ' because nothing was sent to the server for a while. A form sent after that is kept until you sign in.';
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'button';
        button.textContent = 'Stay signed in';
        button.addEventListener('click', stay);
        box.appendChild(text);
        box.appendChild(button);
        document.body.appendChild(box);
      }
      box.hidden = false;
      box.querySelector('button').focus();
    };
    schedule();
  }
  // After signing in again, a form posted on the expired session is filled in as it was (once; nothing is saved).
  var params = new window.URLSearchParams(window.location.search);
  var draftId = params.get('draft');
  if (draftId && window.fetch) {
    params.delete('draft');
    var rest = params.toString();
    window.history.replaceState(
      null,
      '',
      window.location.pathname + (rest ? '?' + rest : '') + window.location.hash,
    );
    window
      .fetch('/console/drafts/' + encodeURIComponent(draftId), {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (draft) {
        if (!draft) return;
        var form = Array.prototype.filter.call(document.forms, function (f) {
          return new URL(f.action, window.location.href).pathname === draft.action;
        })[0];
        if (!form) return;
        Object.keys(draft.fields).forEach(function (name) {
          var values = [].concat(draft.fields[name]);
          form.querySelectorAll('[name="' + window.CSS.escape(name) + '"]').forEach(function (el, i) {
            if (el.type === 'checkbox' || el.type === 'radio') el.checked = values.indexOf(el.value) >= 0;
            else if (el.type !== 'hidden' && el.type !== 'file')
              el.value = values[i] !== undefined ? values[i] : values[0];
          });
        });
        var note = document.createElement('p');
        note.className = 'flash flash-info';
        note.setAttribute('role', 'status');
        note.textContent =
          'What you typed before your session expired is filled in again. It is not saved yet.';
        form.parentNode.insertBefore(note, form);
        note.scrollIntoView();
      });
  }
})();
