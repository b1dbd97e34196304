// testsuite/scripts/browser-session.js -- the headless chromium that the
// browser drivers (html-browser.js, alloc-view-browser.js,
// live-page-browser.js) open their pages in.  When STRATA_BROWSER_WS names
// a browser (lib.sh's start_browser: one chromium for the whole script,
// whose start and close cost about a second of CPU a run), a run connects
// to it and works in a browser context of its own, closed at the end: no
// cookies, storage or cache shared with another run.  Without it, a run
// launches a chromium of its own.  Either way with the flags of issue 5
// and a fresh --user-data-dir.
//
//     const session = await require('./browser-session.js').open();
//     const page = await session.browser.newPage();
//     ...
//     await session.close();
//
//     node browser-session.js --serve
//          starts the shared chromium, prints its "ws://..." endpoint and
//          keeps it until this process gets SIGTERM or SIGINT (it then
//          closes the browser and removes its --user-data-dir); prints
//          "the browser did not start: ..." and exits 1 if it cannot.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require(require.resolve('puppeteer-core',
    { paths: [process.env.STRATA_NODE_MODULES || ''] }));

const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';

// { browser, close }: a chromium of its own (served: reachable over a
// WebSocket on a free port of 127.0.0.1, for other runs to connect to;
// else over a pipe).
async function launch(served) {
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-chromium-'));
    let browser;
    try {
        browser = await puppeteer.launch({
            executablePath: CHROMIUM, ignoreDefaultArgs: true, pipe: !served,
            handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                   '--disable-component-update', '--disable-sync', '--no-first-run',
                   '--user-data-dir=' + userDataDir]
                .concat(served ? ['--remote-debugging-port=0'] : [])
                .concat(['about:blank']),
        });
    } catch (e) {
        fs.rmSync(userDataDir, { recursive: true, force: true });
        throw e;
    }
    return { browser, close: async () => {
        await browser.close();
        fs.rmSync(userDataDir, { recursive: true, force: true });
    } };
}

// { browser, close }: browser has newPage() (a browser or a context).
async function open() {
    const ws = process.env.STRATA_BROWSER_WS;
    if (!ws) return launch(false);
    const shared = await puppeteer.connect({ browserWSEndpoint: ws });
    const context = await shared.createBrowserContext();
    return { browser: context, close: async () => { await context.close(); await shared.disconnect(); } };
}

async function serve() {
    let session;
    try {
        session = await launch(true);
    } catch (e) {
        console.log('the browser did not start: ' + String(e.message || e).split('\n')[0]);
        process.exit(1);
    }
    const stop = () => session.close().finally(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    console.log(session.browser.wsEndpoint());
}

if (require.main === module && process.argv[2] === '--serve') serve();

module.exports = { open };
