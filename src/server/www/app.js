/* app.js — starts the page: the two tabs (Play, Review), the server's health line. */
'use strict';
(function (Z) {
  Z.activeTab = 'play';

  function showTab(name, focus) {
    Z.activeTab = name;
    for (const t of ['play', 'review']) {
      const tab = document.getElementById('tab-' + t);
      const panel = document.getElementById('panel-' + t);
      const on = t === name;
      tab.setAttribute('aria-selected', on ? 'true' : 'false');
      tab.tabIndex = on ? 0 : -1;
      panel.hidden = !on;
      if (on && focus) tab.focus();
    }
    document.getElementById('app').dataset.tab = name;
    if (name === 'review' && Z.Review && Z.Review.render) Z.Review.render();   // the graph fits its width
    if (location.hash !== '#' + name) history.replaceState(null, '', '#' + name);
  }
  Z.showTab = showTab;

  async function health() {
    const box = document.getElementById('server-state');
    try {
      const h = await Z.api('GET', '/api/health');
      box.textContent = h && h.ok ? 'server ready' : 'server?';
      box.className = 'server-state ok';
      box.title = h ? `${h.games} game(s), ${h.reviews} review(s) on the server` : '';
    } catch (e) {
      box.textContent = 'server unreachable';
      box.className = 'server-state bad';
      box.title = e.message;
    }
  }

  function init() {
    const tabs = ['play', 'review'];
    for (const t of tabs) {
      const tab = document.getElementById('tab-' + t);
      tab.addEventListener('click', () => showTab(t));
      tab.addEventListener('keydown', (ev) => {
        const i = tabs.indexOf(t);
        if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
          ev.preventDefault();
          showTab(tabs[(i + (ev.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length], true);
        }
      });
    }
    Z.Play.init();
    Z.Review.init();
    showTab(location.hash === '#review' ? 'review' : 'play');
    health();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})(window.Z);
