// Issue 33: the operator console's pages in Chromium, against the real server ui-e2e.sh started.
// Called by dashboard.cjs with its page (logged in) and helpers; every check prints PASS or FAIL.
'use strict';
const path = require('path');

const XSS = '<img src=x onerror=alert(1)>';
const PAGES = ['connections', 'keys', 'combos', 'usage', 'logs', 'settings', 'health'];

exports.run = async ({ page, browser, check, assert, tid, S, KEY, MOCK, WAIT_MS, SCREENSHOT }) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const go = async (name) => {
    await page.click(tid('nav-' + name));
    await page.waitForFunction((n) => location.hash === '#/' + n, { timeout: WAIT_MS }, name);
  };
  const adminApi = async (method, p, body) => {
    const res = await fetch(S + p, { method, headers: { Authorization: 'Bearer ' + KEY, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  const chat = async (key, model) => (await fetch(S + '/v1/chat/completions', { method: 'POST',
    headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) })).status;
  const fill = async (id, text) => {
    await page.$eval(tid(id), (e) => { e.value = ''; });
    await page.type(tid(id), text);
  };
  const rowOf = (name) => page.evaluateHandle((n) => [...document.querySelectorAll('[data-testid="connection-row"]')]
    .find((r) => r.querySelector('th').firstChild && r.querySelector('th').firstChild.textContent === n) || null, name);
  const connectionRow = async (name) => {
    await page.waitForFunction((n) => [...document.querySelectorAll('[data-testid="connection-row"]')]
      .some((r) => r.querySelector('th') && r.querySelector('th').firstChild && r.querySelector('th').firstChild.textContent === n), { timeout: WAIT_MS }, name);
    return (await rowOf(name)).asElement();
  };
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
  const state = {};

  await check('navigation: each nav-* link names its page in the fragment, and the back button returns', async () => {
    for (const p of PAGES) {
      await go(p);
    }
    await page.goBack();
    await page.waitForFunction(() => location.hash === '#/settings', { timeout: WAIT_MS });
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector(tid('general-save'), { timeout: WAIT_MS });   // a reload keeps the page (and the session key)
    await page.focus(tid('nav-connections'));
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#/connections', { timeout: WAIT_MS });
  });

  await check('Connections: add a connection on the mock (connection-add … connection-save)', async () => {
    await page.click(tid('connection-add'));
    await fill('connection-provider', 'e2eui');
    await fill('connection-name', 'ui-made');
    await fill('connection-apikey', 'sk-ui-made-0123456789abcdef');
    await fill('connection-baseurl', MOCK + '/v1');
    await page.click(tid('connection-save'));
    const row = await connectionRow('ui-made');
    state.connectionId = await row.evaluate((r) => r.dataset.connectionId);
    const text = await row.evaluate((r) => r.textContent);
    assert(!text.includes('sk-ui-made-0123456789abcdef'), 'the secret is shown again: ' + text);
    assert(text.includes('sk-…cdef'), 'the key is not shown masked as the API masks it: ' + text);
  });

  await check('Connections: provider-specific inputs come from the provider\'s descriptor (a plugin\'s options included) and are saved', async () => {
    const plugins = (await adminApi('GET', '/api/plugins')).body;
    const claude = plugins.data.flatMap((p) => p.providers).find((d) => d.id === 'claude');
    assert(claude && claude.connectionFields.some((f) => f.name === 'lowPriorityMode'), 'the claude plugin declares no lowPriorityMode');
    await page.click(tid('connection-add'));
    await fill('connection-provider', 'claude');
    for (const f of claude.connectionFields) {
      await page.waitForSelector(tid('connection-field-' + f.name), { timeout: WAIT_MS });
      const help = await page.$eval(`#${CSS_escape('connection-field-' + f.name)}-help`, (e) => e.textContent);
      assert(help === f.description, `${f.name}: the page says "${help}", the descriptor "${f.description}"`);
    }
    const shown = await page.$$eval('[data-testid^="connection-field-"]', (l) => l.map((e) => e.dataset.testid.slice('connection-field-'.length)));
    assert(JSON.stringify(shown) === JSON.stringify(claude.connectionFields.map((f) => f.name)), 'inputs ' + shown);
    // a custom provider id gets the fields the server names for custom providers
    await fill('connection-provider', 'e2eui');
    await page.waitForFunction(() => !document.querySelector('[data-testid="connection-field-lowPriorityMode"]'), { timeout: WAIT_MS });
    const custom = await page.$$eval('[data-testid^="connection-field-"]', (l) => l.map((e) => e.dataset.testid.slice('connection-field-'.length)));
    assert(JSON.stringify(custom) === JSON.stringify(plugins.customProviderConnectionFields.map((f) => f.name)), 'custom inputs ' + custom);
    await page.click('form.panel button.secondary');   // cancel
    // edit: the descriptor's inputs write providerSpecificData
    const row = await connectionRow('ui-made');
    await (await row.$(tid('connection-edit'))).click();
    await page.waitForSelector(tid('connection-field-models'), { timeout: WAIT_MS });
    await fill('connection-field-models', 'extra-one, extra-two');
    await page.select(tid('connection-field-responsesApi'), 'false');
    await page.click(tid('connection-save'));
    await page.waitForSelector(tid('connection-save'), { hidden: true, timeout: WAIT_MS });   // saved: the form closed
    const want = JSON.stringify({ models: ['extra-one', 'extra-two'], responsesApi: false });
    let saved = null;
    for (let i = 0; i < 20 && JSON.stringify(saved) !== want; i++) {
      saved = (await adminApi('GET', '/api/providers/' + state.connectionId)).body.providerSpecificData;
      if (JSON.stringify(saved) !== want) {
        await sleep(250);
      }
    }
    assert(JSON.stringify(saved) === want, 'stored ' + JSON.stringify(saved));
  });

  await check(`Connections: a connection named ${XSS} renders as text`, async () => {
    await page.click(tid('connection-add'));
    await fill('connection-provider', 'e2eui');
    await fill('connection-name', XSS);
    await fill('connection-apikey', 'sk-ui-xss-0123456789abcdef');
    await fill('connection-baseurl', MOCK + '/v1');
    await page.click(tid('connection-save'));
    const row = await connectionRow(XSS);
    const imgs = await page.$$eval('[data-testid="connection-row"] img', (l) => l.length);
    assert(imgs === 0, `${imgs} <img> element(s) in the connection rows`);
    assert(await row.evaluate((r, x) => r.querySelector('th').firstChild.textContent === x, XSS), 'the name is not shown as text');
    await sleep(300);
    assert(dialogs === 0, 'an alert ran');
  });

  await check('Connections: edit renames, toggle disables and enables, test shows the upstream\'s answer', async () => {
    let row = await connectionRow('ui-made');
    await (await row.$(tid('connection-edit'))).click();
    await fill('connection-name', 'ui-made-renamed');
    await page.click(tid('connection-save'));
    row = await connectionRow('ui-made-renamed');
    await (await row.$(tid('connection-toggle'))).click();
    await page.waitForFunction((id) => {
      const r = document.querySelector(`[data-testid="connection-row"][data-connection-id="${id}"]`);
      return r && r.querySelector('[data-testid="connection-state"]').textContent.includes('disabled');
    }, { timeout: WAIT_MS }, state.connectionId);
    row = await connectionRow('ui-made-renamed');
    await (await row.$(tid('connection-toggle'))).click();
    await page.waitForFunction((id) => {
      const r = document.querySelector(`[data-testid="connection-row"][data-connection-id="${id}"]`);
      return r && r.querySelector('[data-testid="connection-state"]').textContent.includes('active');
    }, { timeout: WAIT_MS }, state.connectionId);
    row = await connectionRow('ui-made-renamed');
    await (await row.$(tid('connection-test'))).click();
    await page.waitForFunction((id) => {
      const r = document.querySelector(`[data-testid="connection-row"][data-connection-id="${id}"] [data-testid="connection-test-result"]`);
      return r && /OK: the upstream listed|Failed|Not tested/.test(r.textContent);
    }, { timeout: WAIT_MS }, state.connectionId);
  });

  await check('Connections: delete asks to confirm, then the row is gone', async () => {
    const row = await connectionRow(XSS);
    await (await row.$(tid('connection-delete'))).click();
    await (await row.$(tid('connection-delete-confirm'))).click();
    await page.waitForFunction((x) => ![...document.querySelectorAll('[data-testid="connection-row"] th')]
      .some((th) => th.firstChild && th.firstChild.textContent === x), { timeout: WAIT_MS }, XSS);
  });

  await check('Keys: create a key, its secret is shown once and answers a real chat request', async () => {
    await go('keys');
    await page.click(tid('key-add'));
    await fill('key-name', 'ui-key');
    await page.click(tid('key-save'));
    await page.waitForSelector(tid('key-secret'), { timeout: WAIT_MS });
    state.secret = await page.$eval(tid('key-secret'), (e) => e.value);
    assert(/^sk-sluice-/.test(state.secret), 'not a key: ' + state.secret);
    await page.waitForSelector(tid('key-row'), { timeout: WAIT_MS });
    state.keyId = await page.$$eval(tid('key-row'), (l) => l.find((r) => r.textContent.includes('ui-key')).dataset.keyId);
    const ok = await chat(state.secret, 'e2eui/gpt-ok');
    assert(ok === 200, 'the chat request with the shown key answered ' + ok);
  });

  await check('Keys: allowed models are set on create and edit, and a chat for another model is refused with 403', async () => {
    await page.click(tid('key-add'));
    await fill('key-name', 'ui-limited');
    await page.type(tid('key-allowed-models'), 'e2eui/gpt-ok');
    await page.click(tid('key-save'));
    await page.waitForSelector(tid('key-secret'), { timeout: WAIT_MS });
    const secret = await page.$eval(tid('key-secret'), (e) => e.value);
    const sel = () => page.evaluateHandle(() => [...document.querySelectorAll('[data-testid="key-row"]')].find((r) => r.querySelector('th').firstChild.textContent === 'ui-limited'));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="key-row"]')].some((r) => r.querySelector('th').firstChild.textContent === 'ui-limited'), { timeout: WAIT_MS });
    let row = (await sel()).asElement();
    const models = await row.$eval(tid('key-models'), (e) => e.textContent);
    assert(models.includes('e2eui/gpt-ok'), 'the row shows ' + models);
    assert(await chat(secret, 'e2eui/gpt-ok') === 200, 'the allowed model was refused');
    const refused = await fetch(S + '/v1/chat/completions', { method: 'POST', headers: { Authorization: 'Bearer ' + secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'e2eui/other-model', messages: [{ role: 'user', content: 'hi' }] }) });
    const body = await refused.json();
    assert(refused.status === 403 && body.error.code === 'model_not_allowed', `another model answered ${refused.status} ${JSON.stringify(body)}`);
    await (await row.$(tid('key-edit'))).click();
    await page.waitForSelector(tid('key-allowed-models'), { timeout: WAIT_MS });
    await page.$eval(tid('key-allowed-models'), (e) => { e.value = ''; });
    await page.type(tid('key-allowed-models'), 'e2eui/*');
    await page.click(tid('key-save'));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="key-row"]')]
      .some((r) => r.querySelector('th').firstChild.textContent === 'ui-limited' && r.querySelector('[data-testid="key-models"]').textContent.includes('e2eui/*')),
    { timeout: WAIT_MS });
    assert(await chat(secret, 'e2eui/other-model') === 200, 'the edited key still refuses e2eui/other-model');
    // a bad entry is refused at its field
    row = (await sel()).asElement();
    await (await row.$(tid('key-edit'))).click();
    await page.$eval(tid('key-allowed-models'), (e) => { e.value = ''; });
    await page.type(tid('key-allowed-models'), 'a*b');
    await page.click(tid('key-save'));
    await page.waitForSelector(tid('key-error-allowedModels'), { timeout: WAIT_MS });
    await page.click('form.panel button.secondary');
    row = (await sel()).asElement();
    await (await row.$(tid('key-revoke'))).click();
    await (await row.$(tid('key-revoke-confirm'))).click();
  });

  await check('Combos: create a combo with a strategy the server lists, edit it, explain it', async () => {
    await go('combos');
    await page.waitForSelector(`${tid('combos-table')} tbody tr`, { timeout: WAIT_MS });   // loaded: the form's strategies come with the list
    await page.click(tid('combo-add'));
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length > 1, { timeout: WAIT_MS }, `${tid('combo-strategy')} option`);
    const strategies = await page.$$eval(`${tid('combo-strategy')} option`, (l) => l.map((o) => o.value));
    assert(strategies.includes('round-robin') && strategies.includes('cost-optimized'), 'strategies: ' + strategies);
    await fill('combo-name', 'ui-combo');
    await page.select(tid('combo-strategy'), 'priority');
    await fill('combo-targets', 'e2eui/gpt-ok\nlimited/gpt-ok weight=2');
    await page.click(tid('combo-save'));
    const sel = `${tid('combo-row')}[data-combo-name="ui-combo"]`;
    await page.waitForSelector(sel, { timeout: WAIT_MS });
    await page.click(`${sel} ${tid('combo-edit')}`);
    await page.select(tid('combo-strategy'), 'round-robin');
    await page.click(tid('combo-save'));
    await page.waitForFunction((s) => document.querySelector(s) && document.querySelector(s).textContent.includes('round-robin'), { timeout: WAIT_MS }, sel);
    // the cooling `limited` connection (ui-e2e.sh) is shown beside its target
    await page.waitForFunction((s) => document.querySelector(s).textContent.includes('cooling'), { timeout: WAIT_MS }, sel);
    await page.click(`${sel} ${tid('combo-explain')}`);
    await page.waitForFunction(() => { const e = document.querySelector('[data-testid="combo-explain-result"]'); return e && e.textContent.includes('e2eui/gpt-ok'); },
      { timeout: WAIT_MS });
    await page.screenshot({ path: shot('combos'), fullPage: true });
    await page.click(`${sel} ${tid('combo-delete')}`);
    await page.click(`${sel} ${tid('combo-delete-confirm')}`);
    await page.waitForSelector(sel, { hidden: true, timeout: WAIT_MS });
  });

  await check('a failing mock: the connection cools and the failed request is in the log with its reason', async () => {
    // model lockout (on since ui-e2e.sh locked a model out) would take the 429 for the model: off, the connection cools
    const off = await adminApi('PATCH', '/api/resilience', { modelLockout: { enabled: false } });
    assert(off.status === 200, 'cannot turn model lockout off: ' + off.status);
    const status = await chat(state.secret, 'e2eui/fail-429-ui');
    await adminApi('PATCH', '/api/resilience', { modelLockout: { enabled: true } });
    assert(status === 429, 'the failing request answered ' + status);
    await go('connections');
    await page.waitForFunction((id) => {
      const r = document.querySelector(`[data-testid="connection-row"][data-connection-id="${id}"] [data-testid="connection-state"]`);
      return r && /cooling/.test(r.textContent) && /left/.test(r.textContent);
    }, { timeout: WAIT_MS }, state.connectionId);
    await page.screenshot({ path: shot('connections'), fullPage: true });
    await go('logs');
    await page.select(tid('log-filter-status'), '4xx');
    await page.waitForSelector(`${tid('log-row')}[data-status="429"]`, { timeout: WAIT_MS });
    const statuses = await page.$$eval(tid('log-row'), (l) => l.map((r) => r.dataset.status));
    assert(statuses.every((s) => s.startsWith('4')), 'the 4xx filter shows ' + statuses);
    await page.click(`${tid('log-row')}[data-status="429"] button`);
    await page.waitForSelector(tid('log-attempt-reason'), { timeout: WAIT_MS });
    const reason = await page.$eval(tid('log-attempt-reason'), (e) => e.textContent);
    assert(reason && reason !== 'ok', 'the attempt has no reason: ' + reason);
    // the attempt shows the cooldown it caused, as recorded then — also once the cooldown is cleared
    const effect = '[data-testid="log-attempt-effect"] [data-kind="cooldown"]';
    await page.waitForSelector(effect, { timeout: WAIT_MS });
    const logged = (await adminApi('GET', '/api/logs?status=429')).body.requests[0].attempts.find((a) => a.effect);
    assert(logged && logged.effect.kind === 'cooldown' && logged.effect.untilMs > Date.now() + 500e3,
      'the API\'s attempt says ' + JSON.stringify(logged && logged.effect));
    const text = await page.$eval(effect, (e) => e.textContent);
    assert(/cooled/.test(text) && /until/.test(text) && text.includes(logged.effect.reason), 'the attempt says ' + text);
    const shownUntil = await page.$eval(effect + ' time', (e) => e.getAttribute('datetime'));
    assert(shownUntil === new Date(logged.effect.untilMs).toISOString(), `shows until ${shownUntil}, recorded ${logged.effect.until}`);
    await page.screenshot({ path: shot('logs'), fullPage: true });
    const cleared = await adminApi('POST', '/api/resilience/cooldowns', { connectionIds: [state.connectionId] });
    assert(cleared.status === 200, 'cannot clear the cooldown: ' + cleared.status);
    await page.click(`${tid('log-row')}[data-status="429"] button`);   // close
    await page.click(`${tid('log-row')}[data-status="429"] button`);   // open again
    await page.waitForSelector(effect, { timeout: WAIT_MS });
    assert(await page.$eval(effect + ' time', (e) => e.getAttribute('datetime')) === shownUntil, 'the cleared cooldown is no longer shown');
  });

  await check('Usage: the key\'s row counts exactly its 2 requests, and the table sums to the totals', async () => {
    await go('usage');
    await page.click(tid('usage-range-1h'));
    await page.select(tid('usage-group'), 'key');
    await page.waitForFunction((id) => [...document.querySelectorAll('[data-testid="usage-row"]')]
      .some((r) => r.querySelector('th') && r.querySelector('th').textContent === id && r.children[1].textContent.trim() === '2'), { timeout: WAIT_MS }, state.keyId);
    const { total, sum, tokens, tokenSum } = await page.evaluate(() => {
      const n = (t) => Number(t.replace(/[^0-9.]/g, ''));
      const rows = [...document.querySelectorAll('[data-testid="usage-row"]')];
      return {
        total: Number(document.querySelector('[data-testid="usage-total-requests"]').dataset.value),
        sum: rows.reduce((s, r) => s + n(r.children[1].textContent), 0),
        tokens: Number(document.querySelector('[data-testid="usage-total-tokens"]').dataset.value),
        tokenSum: rows.reduce((s, r) => s + n(r.children[5].textContent), 0),
      };
    });
    assert(total === sum && tokens === tokenSum, `totals ${total}/${tokens} but rows sum to ${sum}/${tokenSum}`);
    const api = await adminApi('GET', '/api/usage?groupBy=key&from=' + (Date.now() - 3600e3));
    const mine = api.body.groups.find((g) => g.group === state.keyId);
    assert(mine && mine.requests === 2 && mine.errors === 1, 'the API counts ' + JSON.stringify(mine));
    await page.waitForSelector(`${tid('usage-chart')} canvas`, { timeout: WAIT_MS });
    await page.screenshot({ path: shot('usage'), fullPage: true });
  });

  await check('Keys: revoke asks to confirm, then the key is refused', async () => {
    await go('keys');
    const sel = `${tid('key-row')}[data-key-id="${state.keyId}"]`;
    await page.waitForSelector(sel, { timeout: WAIT_MS });
    await page.screenshot({ path: shot('keys'), fullPage: true });
    await page.click(`${sel} ${tid('key-revoke')}`);
    await page.click(`${sel} ${tid('key-revoke-confirm')}`);
    await page.waitForSelector(sel, { hidden: true, timeout: WAIT_MS });
    const status = await chat(state.secret, 'e2eui/gpt-ok');
    assert(status === 401, 'the revoked key answered ' + status);
  });

  await check('Settings: an out-of-range value shows the server\'s error at its field', async () => {
    await go('settings');
    const field = 'setting-circuitBreaker.apikey.failureThreshold';
    await page.waitForSelector(tid(field), { timeout: WAIT_MS });
    const hint = await page.$eval(`#${CSS_escape(field)}-hint`, (e) => e.textContent);
    assert(hint.includes('1–1000') && hint.includes('default 12'), 'no range or default: ' + hint);
    // each field's description and each section's "what a change affects" come from the server's schemas
    const schema = (await adminApi('GET', '/api/resilience/schema')).body;
    const described = schema.sections.flatMap((x) => x.fields);
    const shownText = await page.$$eval('[data-testid^="setting-description-"]', (l) => Object.fromEntries(l.map((e) => [e.dataset.testid.slice(20), e.textContent])));
    const missing = described.filter((f) => !f.description || shownText[f.path] !== f.description).map((f) => f.path);
    assert(missing.length === 0, 'descriptions not shown as the schema says: ' + missing.slice(0, 5).join(', '));
    const affects = await page.$eval(tid('setting-affects-circuitBreaker'), (e) => e.textContent);
    assert(affects.includes(schema.sections[0].affects), 'the section says ' + affects);
    const general = (await adminApi('GET', '/api/settings/schema')).body.sections.flatMap((x) => x.fields);
    for (const g of general) {
      const d = await page.$eval(tid('general-description-' + g.path), (e) => e.textContent);
      assert(d === g.description, `${g.path}: "${d}"`);
    }
    await fill('general-sessionAffinityTtlMs', '86400001');
    await page.click(tid('general-save'));
    await page.waitForSelector(tid('general-error-sessionAffinityTtlMs'), { timeout: WAIT_MS });
    await fill(field, '5000');
    await page.click(tid('settings-save'));
    await page.waitForSelector(tid('setting-error-circuitBreaker.apikey.failureThreshold'), { timeout: WAIT_MS });
    const error = await page.$eval(tid('setting-error-circuitBreaker.apikey.failureThreshold'), (e) => e.textContent);
    assert(/between 1 and 1000/.test(error), 'the error says: ' + error);
    const tree = await adminApi('GET', '/api/resilience');
    assert(tree.body.circuitBreaker.apikey.failureThreshold !== 5000, 'the bad value was stored');
    await page.screenshot({ path: shot('settings'), fullPage: false });
  });

  await check('Add account: a mock OAuth login through oauth-start-claude … oauth-submit connects', async () => {
    await go('connections');
    await page.waitForSelector(tid('oauth-start-claude'), { timeout: WAIT_MS });
    await page.click(tid('oauth-start-claude'));
    await page.waitForSelector(tid('oauth-authorize-link'), { timeout: WAIT_MS });
    const href = await page.$eval(tid('oauth-authorize-link'), (a) => a.href);
    assert(href.startsWith(MOCK + '/oauth/authorize?'), 'the link goes to ' + href);
    const st = new URL(href).searchParams.get('state');
    await fill('oauth-paste', 'code-ui-e2e#' + st);   // what Claude's page shows: code#state
    await page.click(tid('oauth-submit'));
    await page.waitForFunction(() => { const e = document.querySelector('[data-testid="oauth-status"]'); return e && e.dataset.status === 'connected'; },
      { timeout: WAIT_MS });
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="connection-row"]')].some((r) => /token expires/.test(r.textContent)),
      { timeout: WAIT_MS });
  });

  await check('the console fits 360 px: no page scrolls sideways (screenshots at desktop and phone width)', async () => {
    const wide = [];
    for (const p of PAGES) {
      await go(p);
      await sleep(1200);
      if (!['connections', 'combos', 'logs', 'usage', 'keys', 'settings'].includes(p)) {
        await page.screenshot({ path: shot(p), fullPage: true });
      }
    }
    await page.setViewport({ width: 360, height: 780 });
    for (const p of PAGES) {
      await go(p);
      await sleep(1200);
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      if (w > 362) {
        wide.push(`${p}: ${w}px`);
      }
      await page.screenshot({ path: shot(p + '-phone'), fullPage: false });
    }
    await page.setViewport({ width: 1440, height: 900 });
    assert(wide.length === 0, 'wider than the screen: ' + wide.join(', '));
  });

  await check('polling: on each view no two requests start less than 2 s apart (strict), and none while the tab is hidden', async () => {
    // every request the page makes, timed by the page's own clock, and by the browser (CDP) as a cross-check
    await page.evaluate(() => {
      if (!window.__sluiceStarts) {
        const real = window.fetch;
        window.__sluiceStarts = [];
        window.fetch = (...a) => { window.__sluiceStarts.push(performance.now()); return real(...a); };
      }
    });
    const problems = [];
    for (const view of ['health', 'connections', 'combos', 'logs', 'keys', 'usage']) {
      // counted from before the click: the new view's first read must wait 2 s after the old view's last one too
      await page.evaluate(() => { window.__sluiceStarts = []; });
      await go(view);
      let seen = 0;
      const count = (req) => { if (/\/api\/|\/metrics/.test(req.url())) { seen++; } };
      page.on('request', count);
      await sleep(9000);
      page.off('request', count);
      const starts = await page.evaluate(() => window.__sluiceStarts.slice());
      const gaps = starts.slice(1).map((t, i) => t - starts[i]);
      const min = gaps.length ? Math.min(...gaps) : Infinity;
      if (min < 1999) {
        problems.push(`${view}: two requests ${min.toFixed(0)} ms apart`);
      }
      if (seen > 5 || starts.length > 5) {
        problems.push(`${view}: ${seen} requests (page counted ${starts.length}) in 9 s`);
      }
      if (starts.length < 2) {
        problems.push(`${view}: only ${starts.length} request(s) in 9 s: does it poll?`);
      }
    }
    // hidden: nothing starts; shown again: polling resumes, still 2 s apart
    await go('health');
    await sleep(2500);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await sleep(2100);   // a request that had started before may still be answered
    await page.evaluate(() => { window.__sluiceStarts = []; });
    await sleep(7000);
    const hidden = await page.evaluate(() => window.__sluiceStarts.length);
    await page.evaluate(() => {
      delete document.hidden;
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await sleep(4500);
    const resumed = await page.evaluate(() => window.__sluiceStarts.length);
    assert(problems.length === 0, problems.join('; '));
    assert(hidden === 0, `${hidden} requests in 7 s while hidden`);
    assert(resumed >= 1, 'polling did not resume when the tab was shown again');
  });

  await go('health');

  function shot(name) {
    return path.join(path.dirname(SCREENSHOT), 'console-' + name + '.png');
  }
  function CSS_escape(s) {
    return s.replace(/([.])/g, '\\$1');
  }
};
