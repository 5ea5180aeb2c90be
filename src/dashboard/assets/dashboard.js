// Pingward dashboard niceties; every page works without this file.
// - [data-copy="id"] buttons copy the named input's value (a new API key or signing secret) and say so.
// - Buttons with data-confirm ask before submitting (deleting a monitor or a key).
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

// After a key or a webhook's signing secret is made, move focus to it so that keyboard and screen-reader
// users land on it.
document.addEventListener('DOMContentLoaded', function () {
  const panel = document.getElementById('new-key') || document.getElementById('new-secret')
  if (panel) panel.focus()
})
