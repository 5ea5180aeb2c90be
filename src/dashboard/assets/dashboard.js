// Pingward dashboard niceties; every page works without this file.
// - [data-copy="id"] buttons copy the named input's value (a new API key or signing secret) and say so.
// - Buttons with data-confirm ask before submitting (deleting a monitor or a key).
// - The monitor form shows only the chosen kind's fields ([data-kinds]), its inputs disabled when hidden, and
//   the labels and placeholders of that kind ([data-text-<kind>], [data-placeholder-<kind>]). Without this the
//   form shows every kind's fields, and the server keeps the chosen kind's only.
// - Pages follow changes as they happen ([data-live] regions, /events) and relative times move on (below).
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

// Live updates. A page's [data-live] regions name what they show ("monitors", "monitor:<id>", "channel:<id>"); while
// the page is visible it listens to /events, and a change that concerns a region fetches the page again and swaps
// each region whose markup changed, keeping focus and anything typed. Without this file pages show what they showed.
function liveScopes () {
  return Array.prototype.map.call(document.querySelectorAll('[data-live]'), function (region) { return region.getAttribute('data-live') })
}

function concerns (batch, scopes) {
  if (batch.everything) return true
  return scopes.some(function (scope) {
    if (scope === 'monitors') return batch.monitors.length > 0
    const parts = scope.split(':')
    return (parts[0] === 'monitor' ? batch.monitors : batch.channels).indexOf(parts[1]) !== -1
  })
}

// What names a focusable element across a swap: its id, else its label or link (a row's buttons have no id).
function focusKey (element) {
  return element.id || element.getAttribute('aria-label') || element.getAttribute('href')
}

function swapRegion (region, fresh) {
  const active = document.activeElement
  const focused = active && active !== document.body && region.contains(active) ? focusKey(active) : null
  const typed = []
  region.querySelectorAll('input[id], textarea[id]').forEach(function (input) {
    if (input.value !== input.defaultValue) typed.push([input.id, input.value])
  })
  region.innerHTML = fresh.innerHTML
  typed.forEach(function (entry) {
    const input = document.getElementById(entry[0])
    if (input && region.contains(input)) input.value = entry[1]
  })
  if (focused) {
    const again = Array.prototype.find.call(region.querySelectorAll('[id], [aria-label], [href]'), function (element) { return focusKey(element) === focused })
    if (again) again.focus({ preventScroll: true })
  }
}

let fetching = false
let fetchAgain = false

function refresh () {
  if (fetching) {
    fetchAgain = true
    return
  }
  fetching = true
  window.fetch(window.location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin', cache: 'no-store' })
    // A redirect (signed out) or an error page (the monitor deleted) has no fresh regions.
    .then(function (response) { return response.ok && !response.redirected ? response.text() : null })
    .then(function (text) {
      if (text === null) return
      const fresh = new window.DOMParser().parseFromString(text, 'text/html')
      document.querySelectorAll('[data-live][id]').forEach(function (region) {
        const next = fresh.getElementById(region.id)
        if (next && next.innerHTML !== region.innerHTML) swapRegion(region, next)
      })
      tickTimes()
    })
    .catch(function () {})
    .then(function () {
      fetching = false
      if (fetchAgain) {
        fetchAgain = false
        refresh()
      }
    })
}

let source = null

// Only a visible page listens: hidden tabs hold no connection (a browser allows six per site over HTTP/1.1).
function listen () {
  if (source || document.hidden || !window.EventSource || liveScopes().length === 0) return
  source = new window.EventSource('/events')
  let opened = false
  source.addEventListener('open', function () {
    document.documentElement.setAttribute('data-live-state', 'open')
    // Connected again after losing the stream: what changed meanwhile was not heard.
    if (opened) refresh()
    opened = true
  })
  source.addEventListener('change', function (event) {
    if (concerns(JSON.parse(event.data), liveScopes())) refresh()
  })
}

function stopListening () {
  if (!source) return
  source.close()
  source = null
  document.documentElement.removeAttribute('data-live-state')
}

document.addEventListener('visibilitychange', function () {
  if (document.hidden) return stopListening()
  if (liveScopes().length === 0) return
  listen()
  refresh()
})

// Back from the browser's page cache: the page is as it was when left.
window.addEventListener('pageshow', function (event) {
  if (!event.persisted || liveScopes().length === 0) return
  listen()
  refresh()
})
window.addEventListener('pagehide', stopListening)

// Relative times ([data-ago], format.ts's ago()) move on with the clock, worded as the server words them.
function duration (seconds) {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return s + ' s'
  const units = [[86400, 'd'], [3600, 'h'], [60, 'min'], [1, 's']]
  const parts = []
  let rest = s
  for (let i = 0; i < units.length && parts.length < 2; i++) {
    const n = Math.floor(rest / units[i][0])
    if (n > 0 || parts.length > 0) parts.push(n + ' ' + units[i][1])
    rest -= n * units[i][0]
  }
  return parts.filter(function (part) { return part.indexOf('0 ') !== 0 }).join(' ')
}

function tickTimes () {
  const now = Date.now()
  document.querySelectorAll('time[data-ago]').forEach(function (time) {
    const seconds = (now - Date.parse(time.getAttribute('datetime'))) / 1000
    const text = seconds < 10 ? 'just now' : duration(seconds) + ' ago'
    if (time.textContent !== text) time.textContent = text
  })
}

document.addEventListener('DOMContentLoaded', function () {
  listen()
  window.setInterval(tickTimes, 1000)
})
