// The pages' only stylesheet, served at /assets/status.css (the Content-Security-Policy allows
// no inline style). Light and dark follow prefers-color-scheme; one column that fits a phone and
// reads well on a desktop; state colours pass WCAG AA contrast in both schemes and always come
// with text.
export const STYLESHEET = `:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --card: #f6f8fa; --link: #0550ae;
  --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #b3261e; --bad-bg: #ffebe9; --maint: #0550ae; --maint-bg: #ddf4ff;
  --warn: #bf8700;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --card: #161b22; --link: #6cb6ff;
    --ok: #56d364; --ok-bg: #12261e; --bad: #ff7b72; --bad-bg: #2d1214; --maint: #6cb6ff; --maint-bg: #0c2d4a;
    --warn: #e3b341;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header.site, main, footer.site { max-width: 52rem; margin: 0 auto; padding: 0 1rem; }
header.site { padding-top: 1.25rem; padding-bottom: .75rem; border-bottom: 1px solid var(--line); }
header.site .home { font-size: 1.25rem; font-weight: 700; color: var(--fg); text-decoration: none; }
a { color: var(--link); }
a:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 1.25rem 0 .5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .5rem; overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.banner { margin: 1.25rem 0; padding: 1rem 1.25rem; border-radius: .5rem; border: 1px solid currentColor; }
.banner .overall { margin: 0; font-size: 1.25rem; font-weight: 700; }
.banner.state-operational { color: var(--ok); background: var(--ok-bg); }
.banner.state-degraded { color: var(--bad); background: var(--bad-bg); }
.banner.state-under-maintenance { color: var(--maint); background: var(--maint-bg); }
.glyph { display: inline-block; min-width: 1.2em; text-align: center; font-weight: 700; }
.notice { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; margin: .75rem 0; }
.meta { color: var(--muted); font-size: .9rem; margin: .25rem 0; }
.content { margin: .5rem 0; white-space: pre-line; overflow-wrap: anywhere; }
.relative { white-space: nowrap; }
.kind { font-weight: 600; }
.tag { display: inline-block; padding: 0 .45rem; border-radius: 1rem; border: 1px solid var(--line); font-size: .85rem; color: var(--fg); }
.notice-investigating, .notice-identified { border-color: var(--bad); color: var(--bad); }
.notice-underway { border-color: var(--maint); color: var(--maint); }
.notice-resolved, .notice-complete { border-color: var(--ok); color: var(--ok); }
.components { list-style: none; margin: 0; padding: 0; }
.components .components { margin-left: 1.25rem; border-left: 2px solid var(--line); padding-left: .75rem; }
.component { padding: .5rem 0; border-bottom: 1px solid var(--line); }
.component:last-child { border-bottom: 0; }
.component .row { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .25rem 1rem; }
.component .name { font-weight: 600; overflow-wrap: anywhere; }
.description { color: var(--muted); margin: .1rem 0 0; font-size: .9rem; overflow-wrap: anywhere; }
.state { white-space: nowrap; font-weight: 600; }
.state-operational { color: var(--ok); }
.state-degraded { color: var(--bad); }
.state-under-maintenance { color: var(--maint); }
.uptime { margin: .4rem 0 .1rem; }
.uptime-total { margin: 0 0 .2rem; color: var(--muted); font-size: .85rem; }
.bars { display: flex; gap: 1px; list-style: none; margin: 0; padding: 0; height: 1.75rem; }
.day { flex: 1 1 0; min-width: 0; position: relative; border-radius: 1px; background: var(--ok); }
.day-none { background: var(--line); }
.day-partial { background: var(--warn); }
.day-down { background: var(--bad); }
.day-maint { background: var(--maint); }
.table-scroll { overflow-x: auto; margin: .75rem 0; }
.table-scroll:focus-visible { outline: 2px solid var(--link); }
.uptime-days { border-collapse: collapse; width: 100%; font-size: .9rem; }
.uptime-days caption { text-align: left; color: var(--muted); padding: 0 0 .25rem; }
.uptime-days th, .uptime-days td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.uptime-days td:last-child { overflow-wrap: anywhere; }
.timeline { list-style: none; margin: 0; padding: 0 0 0 1rem; border-left: 2px solid var(--line); }
.timeline li { margin: 0 0 1rem; }
.empty { color: var(--muted); }
.pages { display: flex; gap: 1rem; align-items: center; margin: 1.5rem 0; }
footer.site { margin-top: 2.5rem; padding-top: 1rem; padding-bottom: 2rem; border-top: 1px solid var(--line); color: var(--muted); font-size: .9rem; }
footer.site ul { list-style: none; display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; margin: 0 0 .5rem; padding: 0; }
`;
