/**
 * The sign-in, second-factor, consent and error pages' stylesheet: the console's look (its colours,
 * card, fields and buttons; console/src/styles.css), so that signing in to the console does not
 * pass through a bare page. Inline in each page (their CSP allows inline style, no script), with
 * `box-sizing: border-box` so that no field is wider than a 390 px phone, and the console's dark
 * colours when the system asks for them. Colours keep at least 4.5:1 contrast.
 */
export const PAGE_STYLE = `:root{--bg:#f5f6f8;--panel:#fff;--text:#1c2230;--muted:#4d5566;--line:#d5d9e0;--field:#8a93a3;--accent:#1f5fc9;--accent-hover:#174ea8;--danger:#b3261e;--error-bg:#fdecea;--error-line:#e8a39d;--error-text:#7a1b14;--info-bg:#e8f0fd;--info-line:#a9c1ee;--info-text:#173f7f;
color-scheme:light dark;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:15px;line-height:1.45;color:var(--text);background:var(--bg)}
@media (prefers-color-scheme:dark){:root{--bg:#11151d;--panel:#1a202b;--text:#e6e9ef;--muted:#aab2c0;--line:#333c4d;--field:#6c778a;--accent:#4d8ef7;--accent-hover:#6ba1f8;--danger:#ff8a80;--error-bg:#3a1b19;--error-line:#8c3a33;--error-text:#ffb4ab;--info-bg:#172a46;--info-line:#3a5a8c;--info-text:#b9d3ff}}
*{box-sizing:border-box}body{margin:0}
.brand{background:#18233a;color:#fff;font-weight:600;padding:.6rem 1.2rem}
main{max-width:30rem;margin:3rem auto;padding:2rem;background:var(--panel);border:1px solid var(--line);border-radius:.6rem}
@media (max-width:520px){main{margin:1rem;padding:1.25rem}}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
a{color:var(--accent)}
:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
form{margin:0}
label{display:block;font-weight:500;margin:.8rem 0 .2rem}
input{display:block;width:100%;font:inherit;padding:.45rem .55rem;border:1px solid var(--field);border-radius:.35rem;background:var(--panel);color:var(--text)}
.buttons{display:grid;gap:.6rem;margin-top:1.2rem}
button{display:block;width:100%;font:inherit;padding:.55rem .9rem;border-radius:.4rem;border:1px solid var(--field);background:var(--panel);color:var(--text);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
button.primary:hover{background:var(--accent-hover)}
@media (prefers-color-scheme:dark){button.primary{color:#0b1220}}
.alert{border:1px solid;border-radius:.4rem;padding:.6rem .8rem;margin:.6rem 0}
.error{background:var(--error-bg);border-color:var(--error-line);color:var(--error-text)}
.info{background:var(--info-bg);border-color:var(--info-line);color:var(--info-text)}
.detail{color:var(--muted);overflow-wrap:anywhere}
ul{padding-left:1.2rem}li{margin:.3rem 0}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem}`;
