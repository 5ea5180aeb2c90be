// Pingward dashboard niceties; every page works without this file.
// - [data-copy="id"] buttons copy the named input's value (a new API key or signing secret) and say so.
// - Buttons with data-confirm ask before submitting (deleting a monitor or a key).
// - The monitor form shows only the chosen kind's fields ([data-kinds]), its inputs disabled when hidden, and
//   the labels and placeholders of that kind ([data-text-<kind>], [data-placeholder-<kind>]). Without this the
//   form shows every kind's fields, and the server keeps the chosen kind's only.
'use strict'

document.addEventListener('click', function (event) {
  const target = event.target instanceof Element ? event.target.closest('button') : null
  if (!target) return

  const copyId = target.getAttribute('data-copy')
  if (copyId) {
    const input = document.getElementById(copyId)
    const status = document.querySelector('.copy-status')
    const done = function (ok) {
      if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Could not copy: select it and copy it yourself.'
    }
    input.focus()
    input.select()
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(function () { done(true) }, function () { done(document.execCommand('copy')) })
    } else {
      done(document.execCommand('copy'))
    }
    return
  }

  const question = target.getAttribute('data-confirm')
  if (question && !window.confirm(question)) event.preventDefault()
})

function showKind (form) {
  const select = form.querySelector('select[name="monitor_type"]')
  if (!select) return
  const kind = select.value
  form.querySelectorAll('[data-kinds]').forEach(function (group) {
    const shown = group.getAttribute('data-kinds').split(' ').indexOf(kind) !== -1
    group.hidden = !shown
    // A disabled input is not sent, so nothing of another kind reaches the server.
    group.querySelectorAll('input, select, textarea').forEach(function (input) { input.disabled = !shown })
  })
  form.querySelectorAll('[data-text-' + kind + ']').forEach(function (element) {
    element.textContent = element.getAttribute('data-text-' + kind)
  })
  form.querySelectorAll('[data-placeholder-' + kind + ']').forEach(function (input) {
    input.placeholder = input.getAttribute('data-placeholder-' + kind)
  })
}

document.addEventListener('change', function (event) {
  const target = event.target
  if (target instanceof Element && target.tagName === 'SELECT' && target.name === 'monitor_type' && target.form) showKind(target.form)
})

// After a key or a webhook's signing secret is made, move focus to it so that keyboard and screen-reader
// users land on it.
document.addEventListener('DOMContentLoaded', function () {
  const panel = document.getElementById('new-key') || document.getElementById('new-secret')
  if (panel) panel.focus()
  document.querySelectorAll('form.monitor-form').forEach(showKind)
})
