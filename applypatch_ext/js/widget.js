// The widget's ES module, built by `make widget` from js/src/ (esbuild): edit those, not this.

// src/helpers.js
var LIMITS = Object.freeze({
  patchLines: 400,
  diffLines: 1500,
  fileDiffLines: 300,
  changeDiffLines: 120,
  rows: 200,
  events: 300,
  explanationPairs: 200,
  history: 1e3
});
var str = (v) => typeof v === "string" ? v : v === null || v === void 0 ? "" : String(v);
var obj = (v) => v && typeof v === "object" && !Array.isArray(v) ? (
  /** @type {any} */
  v
) : {};
var arr = (v) => Array.isArray(v) ? v : [];
var plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
function truncate(items, max) {
  if (items.length <= max) return { shown: items, hidden: 0 };
  return { shown: items.slice(0, max), hidden: items.length - max };
}
function moreText(hidden, noun = "line", where = "more") {
  return `… ${hidden} ${where} ${noun}${hidden === 1 ? "" : "s"}`;
}
function lineCount(text) {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}
function windowLines(count, focus, max) {
  if (count <= max) return { start: 0, end: count };
  if (!(focus > 0) || focus <= max) return { start: 0, end: max };
  const end = Math.min(count, focus + Math.floor(max / 10));
  return { start: Math.max(0, end - max), end };
}
function codePoint(ch) {
  const cp = ch.codePointAt(0) ?? 0;
  return "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
}
function visibleChar(ch, showSpace) {
  if (ch === " ")
    return showSpace ? { kind: "space", text: "·", title: "space" } : { kind: "text", text: ch };
  if (ch === "	") return { kind: "tab", text: "→", title: "tab" };
  if (ch === "\r") return { kind: "cr", text: "␍", title: "carriage return (CR)" };
  if (ch === "\n") return { kind: "cr", text: "␊", title: "line feed (LF)" };
  if (ch.charCodeAt(0) < 128) return { kind: "text", text: ch };
  if (/\p{Zs}/u.test(ch)) return { kind: "nbsp", text: "⍽", title: `${codePoint(ch)} (a non-ASCII space)` };
  if (/\p{Cf}/u.test(ch))
    return { kind: "invisible", text: `⟨${codePoint(ch)}⟩`, title: "invisible character" };
  if (/[\p{P}\p{S}]/u.test(ch))
    return { kind: "typo", text: ch, title: `${codePoint(ch)} (typographic punctuation)` };
  return { kind: "text", text: ch };
}
function visibleSegments(segments) {
  const tokens = [];
  if (!Array.isArray(segments)) return tokens;
  const clean = segments.filter((s) => Array.isArray(s) && typeof s[1] === "string");
  const line = clean.map((s) => s[1]).join("");
  let trailing = line.length;
  while (trailing > 0 && /\s/.test(line[trailing - 1])) trailing--;
  let offset = 0;
  for (const [differs, text] of clean) {
    for (const ch of text) {
      const v = visibleChar(ch, Boolean(differs) || offset >= trailing);
      offset += ch.length;
      const last = tokens[tokens.length - 1];
      if (last && last.kind === v.kind && last.differs === Boolean(differs) && last.title === v.title) {
        last.text += v.text;
      } else {
        tokens.push({ differs: Boolean(differs), ...v });
      }
    }
  }
  return tokens;
}
function visibleText(text) {
  return visibleSegments(typeof text === "string" ? [[false, text]] : []);
}
function relativePath(path, cwd) {
  if (!path) return "";
  if (!cwd) return path;
  const base = cwd.endsWith("/") || cwd.endsWith("\\") ? cwd : cwd + "/";
  return path.startsWith(base) ? path.slice(base.length) : path;
}
function formatOffset(time, base) {
  const t = Number(time);
  const b = Number(base);
  if (!Number.isFinite(t)) return "";
  return `+${(t - (Number.isFinite(b) ? b : 0)).toFixed(3)}s`;
}
function recordHistory(history, k, v, t, limit = LIMITS.history) {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].k === k) {
      if (history[i].v === v) return history;
      break;
    }
  }
  history.push({ t, k, v });
  if (history.length > limit) history.splice(0, history.length - limit);
  return history;
}

// src/vocabulary.js
function statusMeaning(vocabulary, status) {
  const s = str(status);
  const table = obj(obj(vocabulary).statuses);
  const entry = Object.prototype.hasOwnProperty.call(table, s) ? obj(table[s]) : null;
  const base = entry ?? obj(obj(vocabulary).unknown);
  const flag = (name, otherwise) => typeof base[name] === "boolean" ? base[name] : otherwise;
  return {
    label: str(base.label) || s,
    tone: /^[a-z-]+$/.test(str(base.tone)) ? str(base.tone) : "neutral",
    terminal: flag("terminal", s !== ""),
    wrote: flag("wrote", true),
    success: flag("success", false),
    dry_run: flag("dry_run", false),
    user_declined: flag("user_declined", false),
    summary: str(base.summary) || "error",
    known: entry !== null || Object.keys(table).length === 0
  };
}
function undoneMeaning(vocabulary, undone, meaning) {
  const table = obj(obj(vocabulary).undone);
  const key = str(undone);
  if (!key || !Object.prototype.hasOwnProperty.call(table, key)) return meaning;
  const entry = obj(table[key]);
  const tone = /^[a-z-]+$/.test(str(entry.tone)) ? str(entry.tone) : meaning.tone;
  return { ...meaning, label: str(entry.label) || key, tone };
}
function previewWords(vocabulary, ended) {
  const words = obj(obj(obj(vocabulary).preview)[ended ? "ended" : "running"]);
  return { title: str(words.title), note: str(words.note), text: str(words.text) };
}
function stageList(vocabulary) {
  return arr(obj(vocabulary).stages).map(obj).filter((st) => typeof st.name === "string" && st.name !== "").map((st) => ({
    name: st.name,
    label: str(st.label) || st.name,
    evidence: typeof st.evidence === "string" && st.evidence ? st.evidence : null,
    writes: st.writes === true
  }));
}
function decisionList(vocabulary) {
  return arr(obj(vocabulary).decisions).map(obj).filter((d) => typeof d.decision === "string" && d.decision !== "").map((d) => ({
    decision: d.decision,
    label: str(d.label) || d.decision,
    testid: str(d.testid) || `applypatch-${d.decision}`,
    approves: d.approves !== false,
    selectedLabel: d.approves !== false ? str(d.selected_label) || `${str(d.label) || d.decision} selected` : ""
  }));
}
function tickState(ticks) {
  if (!ticks || ticks.total === 0 || ticks.kept === ticks.total)
    return { partial: false, none: false, suffix: "", hint: "" };
  if (ticks.kept === 0)
    return { partial: true, none: true, suffix: "", hint: "Nothing is ticked: tick what to apply, or Decline the whole patch." };
  const { shown, hidden } = truncate(ticks.left, 8);
  const listed = shown.join(", ") + (hidden ? ` and ${hidden} more` : "");
  return {
    partial: true,
    none: false,
    suffix: ` (${ticks.kept} of ${ticks.total})`,
    hint: `Approving applies the ticked ${ticks.kept} of ${ticks.total} only; not applied: ${listed}`
  };
}
function reviewAccept(files, selected) {
  const byPath = {};
  files.forEach((f, i) => {
    const entry = byPath[f.path] ??= { kept: [], total: 0, whole: null };
    if (f.whole || f.chunks.length === 0) {
      entry.whole = selected(i, null);
      return;
    }
    for (const c of f.chunks) {
      entry.total += 1;
      if (selected(i, c.index)) entry.kept.push(c.index);
    }
  });
  const accept = {};
  for (const [path, e] of Object.entries(byPath)) {
    if (e.whole !== null) accept[path] = e.whole;
    else if (e.kept.length === e.total) accept[path] = true;
    else if (e.kept.length === 0) accept[path] = false;
    else accept[path] = e.kept;
  }
  return accept;
}
function stageLabel(stages, stage) {
  if (!stage) return stages[0]?.label ?? "";
  return stages.find((st) => st.name === stage)?.label ?? stage;
}
var STAGE_TITLES = (
  /** @type {Record<string, string>} */
  Object.freeze({
    skipped: "not needed for this call",
    unreached: "not reached: the call stopped before"
  })
);
function stageStates(stages, stage, meaning, eventTypes = []) {
  const list = Array.isArray(stages) ? stages : [];
  const seen = new Set(Array.isArray(eventTypes) ? eventTypes : []);
  const at = list.findIndex((st) => st.name === stage);
  const ended = meaning.terminal;
  const bad = ended && !meaning.success;
  const skipped = (st) => st.writes && (!meaning.wrote || meaning.user_declined) || st.evidence !== null && !seen.has(st.evidence);
  return list.map((st, i) => {
    let state = "todo";
    if (at < 0) state = "todo";
    else if (i < at) state = skipped(st) ? "skipped" : "done";
    else if (i === at) state = !ended ? "active" : bad ? "failed" : "done";
    else if (bad) state = "unreached";
    return { name: st.name, label: st.label, state };
  });
}
function summaryText(s, meaning) {
  const count = (o) => Object.keys(o ?? {}).length;
  const files = (n) => `${n} file${n === 1 ? "" : "s"}`;
  const committed = Array.isArray(s.delta?.changes) ? s.delta.changes.length : 0;
  const proposed = count(s.proposed);
  const label = meaning.label;
  switch (meaning.summary) {
    case "progress": {
      const planned = count(s.planned);
      return `${s.stage ?? ""}…` + (planned ? ` ${files(planned)} planned, nothing written yet` : "");
    }
    case "approval":
      return `waiting for approval of ${files((s.approval?.files ?? []).length || proposed)}; nothing written yet`;
    case "verified-only":
      return `${files(proposed)} verified`;
    case "changed":
      return `${files(committed)} changed`;
    case "nothing-written":
      return `${label}: nothing written`;
    case "committed-of-proposed": {
      const exact = s.delta?.exact === false ? " (inexact: a lower bound)" : "";
      return `${label}: ${committed} of ${files(proposed)} committed${exact}`;
    }
    default:
      return s.error ? `${label}: ${firstLine(s.error)}` : label;
  }
}
var SUMMARY_FORMS = Object.freeze([
  "progress",
  "approval",
  "verified-only",
  "changed",
  "nothing-written",
  "committed-of-proposed",
  "error"
]);
function firstLine(text) {
  const line = String(text).split("\n", 1)[0];
  return line.length > 160 ? line.slice(0, 159) + "…" : line;
}
function atlasWords(vocabulary) {
  const atlas = obj(obj(vocabulary).atlas);
  const roles = Object.entries(obj(atlas.roles)).map(([role, r]) => ({ role, r: obj(r) })).filter(({ r }) => typeof r.trait === "string" && r.trait !== "").map(({ role, r }) => ({
    role,
    trait: str(r.trait),
    many: r.many === true,
    label: str(r.label) || role,
    tone: /^[a-z-]+$/.test(str(r.tone)) ? str(r.tone) : "neutral",
    note: str(r.note)
  }));
  return { roles, suggestionNote: str(atlas.suggestion_note) };
}
function diagnosisEntries(traits, vocabulary) {
  const table = obj(obj(vocabulary).diagnoses);
  const { roles, suggestionNote } = atlasWords(vocabulary);
  return roles.flatMap((r) => {
    const value = Object.prototype.hasOwnProperty.call(traits, r.trait) ? traits[r.trait] : void 0;
    return (r.many ? arr(value) : [value]).map(obj).filter((d) => typeof d.kind === "string" && d.kind !== "").map((d) => {
      const kind = str(d.kind);
      const known = Object.prototype.hasOwnProperty.call(table, kind);
      return {
        role: r.role,
        label: r.label,
        tone: r.tone,
        kind,
        meaning: known ? str(obj(table[kind]).meaning) : "",
        known,
        where: str(d.where),
        message: str(d.message),
        suggestion: str(d.suggestion),
        note: suggestionNote
      };
    });
  });
}

// src/dom.js
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === void 0 || value === false) continue;
    if (name === "class") el.className = String(value);
    else if (name === "text") el.textContent = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== void 0 && child !== false) el.append(child);
  }
  return el;
}
function fill(el, ...children) {
  el.replaceChildren(
    .../** @type {(Node | string)[]} */
    children.filter((c) => c !== null && c !== void 0 && c !== false)
  );
}
function tokenSpans(tokens) {
  return tokens.map(
    (t) => t.kind === "text" && !t.differs ? t.text : h("span", {
      class: `applypatch-tok applypatch-tok-${t.kind}${t.differs ? " applypatch-differs" : ""}`,
      title: t.title ?? (t.differs ? "differs" : null),
      text: t.text
    })
  );
}
function section(title, testid, open, badge = null) {
  const heading = h("span", { class: "applypatch-section-title", text: title });
  const note = h("span", { class: "applypatch-section-note" });
  const body = h("div", { class: "applypatch-section-body" });
  const el = (
    /** @type {HTMLDetailsElement} */
    h(
      "details",
      { class: "applypatch-section", "data-testid": testid, open },
      h("summary", null, badge, heading, note),
      body
    )
  );
  return { el, note, body };
}
function copyText(text, note, what) {
  const clip = (
    /** @type {any} */
    globalThis.navigator?.clipboard
  );
  if (!clip?.writeText) {
    note.textContent = `cannot copy: the clipboard is not available here (select the ${what} instead)`;
    return;
  }
  clip.writeText(text).then(
    () => note.textContent = `${what} copied`,
    () => note.textContent = `cannot copy: the browser refused (select the ${what} instead)`
  );
}

// ../applypatch_ext/js/diff-words.json
var diff_words_default = { unicode: "14.0.0", word: [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
  [170, 170],
  [178, 179],
  [181, 181],
  [185, 186],
  [188, 190],
  [192, 214],
  [216, 246],
  [248, 705],
  [710, 721],
  [736, 740],
  [748, 748],
  [750, 750],
  [880, 884],
  [886, 887],
  [890, 893],
  [895, 895],
  [902, 902],
  [904, 906],
  [908, 908],
  [910, 929],
  [931, 1013],
  [1015, 1153],
  [1162, 1327],
  [1329, 1366],
  [1369, 1369],
  [1376, 1416],
  [1488, 1514],
  [1519, 1522],
  [1568, 1610],
  [1632, 1641],
  [1646, 1647],
  [1649, 1747],
  [1749, 1749],
  [1765, 1766],
  [1774, 1788],
  [1791, 1791],
  [1808, 1808],
  [1810, 1839],
  [1869, 1957],
  [1969, 1969],
  [1984, 2026],
  [2036, 2037],
  [2042, 2042],
  [2048, 2069],
  [2074, 2074],
  [2084, 2084],
  [2088, 2088],
  [2112, 2136],
  [2144, 2154],
  [2160, 2183],
  [2185, 2190],
  [2208, 2249],
  [2308, 2361],
  [2365, 2365],
  [2384, 2384],
  [2392, 2401],
  [2406, 2415],
  [2417, 2432],
  [2437, 2444],
  [2447, 2448],
  [2451, 2472],
  [2474, 2480],
  [2482, 2482],
  [2486, 2489],
  [2493, 2493],
  [2510, 2510],
  [2524, 2525],
  [2527, 2529],
  [2534, 2545],
  [2548, 2553],
  [2556, 2556],
  [2565, 2570],
  [2575, 2576],
  [2579, 2600],
  [2602, 2608],
  [2610, 2611],
  [2613, 2614],
  [2616, 2617],
  [2649, 2652],
  [2654, 2654],
  [2662, 2671],
  [2674, 2676],
  [2693, 2701],
  [2703, 2705],
  [2707, 2728],
  [2730, 2736],
  [2738, 2739],
  [2741, 2745],
  [2749, 2749],
  [2768, 2768],
  [2784, 2785],
  [2790, 2799],
  [2809, 2809],
  [2821, 2828],
  [2831, 2832],
  [2835, 2856],
  [2858, 2864],
  [2866, 2867],
  [2869, 2873],
  [2877, 2877],
  [2908, 2909],
  [2911, 2913],
  [2918, 2927],
  [2929, 2935],
  [2947, 2947],
  [2949, 2954],
  [2958, 2960],
  [2962, 2965],
  [2969, 2970],
  [2972, 2972],
  [2974, 2975],
  [2979, 2980],
  [2984, 2986],
  [2990, 3001],
  [3024, 3024],
  [3046, 3058],
  [3077, 3084],
  [3086, 3088],
  [3090, 3112],
  [3114, 3129],
  [3133, 3133],
  [3160, 3162],
  [3165, 3165],
  [3168, 3169],
  [3174, 3183],
  [3192, 3198],
  [3200, 3200],
  [3205, 3212],
  [3214, 3216],
  [3218, 3240],
  [3242, 3251],
  [3253, 3257],
  [3261, 3261],
  [3293, 3294],
  [3296, 3297],
  [3302, 3311],
  [3313, 3314],
  [3332, 3340],
  [3342, 3344],
  [3346, 3386],
  [3389, 3389],
  [3406, 3406],
  [3412, 3414],
  [3416, 3425],
  [3430, 3448],
  [3450, 3455],
  [3461, 3478],
  [3482, 3505],
  [3507, 3515],
  [3517, 3517],
  [3520, 3526],
  [3558, 3567],
  [3585, 3632],
  [3634, 3635],
  [3648, 3654],
  [3664, 3673],
  [3713, 3714],
  [3716, 3716],
  [3718, 3722],
  [3724, 3747],
  [3749, 3749],
  [3751, 3760],
  [3762, 3763],
  [3773, 3773],
  [3776, 3780],
  [3782, 3782],
  [3792, 3801],
  [3804, 3807],
  [3840, 3840],
  [3872, 3891],
  [3904, 3911],
  [3913, 3948],
  [3976, 3980],
  [4096, 4138],
  [4159, 4169],
  [4176, 4181],
  [4186, 4189],
  [4193, 4193],
  [4197, 4198],
  [4206, 4208],
  [4213, 4225],
  [4238, 4238],
  [4240, 4249],
  [4256, 4293],
  [4295, 4295],
  [4301, 4301],
  [4304, 4346],
  [4348, 4680],
  [4682, 4685],
  [4688, 4694],
  [4696, 4696],
  [4698, 4701],
  [4704, 4744],
  [4746, 4749],
  [4752, 4784],
  [4786, 4789],
  [4792, 4798],
  [4800, 4800],
  [4802, 4805],
  [4808, 4822],
  [4824, 4880],
  [4882, 4885],
  [4888, 4954],
  [4969, 4988],
  [4992, 5007],
  [5024, 5109],
  [5112, 5117],
  [5121, 5740],
  [5743, 5759],
  [5761, 5786],
  [5792, 5866],
  [5870, 5880],
  [5888, 5905],
  [5919, 5937],
  [5952, 5969],
  [5984, 5996],
  [5998, 6e3],
  [6016, 6067],
  [6103, 6103],
  [6108, 6108],
  [6112, 6121],
  [6128, 6137],
  [6160, 6169],
  [6176, 6264],
  [6272, 6276],
  [6279, 6312],
  [6314, 6314],
  [6320, 6389],
  [6400, 6430],
  [6470, 6509],
  [6512, 6516],
  [6528, 6571],
  [6576, 6601],
  [6608, 6618],
  [6656, 6678],
  [6688, 6740],
  [6784, 6793],
  [6800, 6809],
  [6823, 6823],
  [6917, 6963],
  [6981, 6988],
  [6992, 7001],
  [7043, 7072],
  [7086, 7141],
  [7168, 7203],
  [7232, 7241],
  [7245, 7293],
  [7296, 7304],
  [7312, 7354],
  [7357, 7359],
  [7401, 7404],
  [7406, 7411],
  [7413, 7414],
  [7418, 7418],
  [7424, 7615],
  [7680, 7957],
  [7960, 7965],
  [7968, 8005],
  [8008, 8013],
  [8016, 8023],
  [8025, 8025],
  [8027, 8027],
  [8029, 8029],
  [8031, 8061],
  [8064, 8116],
  [8118, 8124],
  [8126, 8126],
  [8130, 8132],
  [8134, 8140],
  [8144, 8147],
  [8150, 8155],
  [8160, 8172],
  [8178, 8180],
  [8182, 8188],
  [8304, 8305],
  [8308, 8313],
  [8319, 8329],
  [8336, 8348],
  [8450, 8450],
  [8455, 8455],
  [8458, 8467],
  [8469, 8469],
  [8473, 8477],
  [8484, 8484],
  [8486, 8486],
  [8488, 8488],
  [8490, 8493],
  [8495, 8505],
  [8508, 8511],
  [8517, 8521],
  [8526, 8526],
  [8528, 8585],
  [9312, 9371],
  [9450, 9471],
  [10102, 10131],
  [11264, 11492],
  [11499, 11502],
  [11506, 11507],
  [11517, 11517],
  [11520, 11557],
  [11559, 11559],
  [11565, 11565],
  [11568, 11623],
  [11631, 11631],
  [11648, 11670],
  [11680, 11686],
  [11688, 11694],
  [11696, 11702],
  [11704, 11710],
  [11712, 11718],
  [11720, 11726],
  [11728, 11734],
  [11736, 11742],
  [11823, 11823],
  [12293, 12295],
  [12321, 12329],
  [12337, 12341],
  [12344, 12348],
  [12353, 12438],
  [12445, 12447],
  [12449, 12538],
  [12540, 12543],
  [12549, 12591],
  [12593, 12686],
  [12690, 12693],
  [12704, 12735],
  [12784, 12799],
  [12832, 12841],
  [12872, 12879],
  [12881, 12895],
  [12928, 12937],
  [12977, 12991],
  [13312, 19903],
  [19968, 42124],
  [42192, 42237],
  [42240, 42508],
  [42512, 42539],
  [42560, 42606],
  [42623, 42653],
  [42656, 42735],
  [42775, 42783],
  [42786, 42888],
  [42891, 42954],
  [42960, 42961],
  [42963, 42963],
  [42965, 42969],
  [42994, 43009],
  [43011, 43013],
  [43015, 43018],
  [43020, 43042],
  [43056, 43061],
  [43072, 43123],
  [43138, 43187],
  [43216, 43225],
  [43250, 43255],
  [43259, 43259],
  [43261, 43262],
  [43264, 43301],
  [43312, 43334],
  [43360, 43388],
  [43396, 43442],
  [43471, 43481],
  [43488, 43492],
  [43494, 43518],
  [43520, 43560],
  [43584, 43586],
  [43588, 43595],
  [43600, 43609],
  [43616, 43638],
  [43642, 43642],
  [43646, 43695],
  [43697, 43697],
  [43701, 43702],
  [43705, 43709],
  [43712, 43712],
  [43714, 43714],
  [43739, 43741],
  [43744, 43754],
  [43762, 43764],
  [43777, 43782],
  [43785, 43790],
  [43793, 43798],
  [43808, 43814],
  [43816, 43822],
  [43824, 43866],
  [43868, 43881],
  [43888, 44002],
  [44016, 44025],
  [44032, 55203],
  [55216, 55238],
  [55243, 55291],
  [63744, 64109],
  [64112, 64217],
  [64256, 64262],
  [64275, 64279],
  [64285, 64285],
  [64287, 64296],
  [64298, 64310],
  [64312, 64316],
  [64318, 64318],
  [64320, 64321],
  [64323, 64324],
  [64326, 64433],
  [64467, 64829],
  [64848, 64911],
  [64914, 64967],
  [65008, 65019],
  [65136, 65140],
  [65142, 65276],
  [65296, 65305],
  [65313, 65338],
  [65345, 65370],
  [65382, 65470],
  [65474, 65479],
  [65482, 65487],
  [65490, 65495],
  [65498, 65500],
  [65536, 65547],
  [65549, 65574],
  [65576, 65594],
  [65596, 65597],
  [65599, 65613],
  [65616, 65629],
  [65664, 65786],
  [65799, 65843],
  [65856, 65912],
  [65930, 65931],
  [66176, 66204],
  [66208, 66256],
  [66273, 66299],
  [66304, 66339],
  [66349, 66378],
  [66384, 66421],
  [66432, 66461],
  [66464, 66499],
  [66504, 66511],
  [66513, 66517],
  [66560, 66717],
  [66720, 66729],
  [66736, 66771],
  [66776, 66811],
  [66816, 66855],
  [66864, 66915],
  [66928, 66938],
  [66940, 66954],
  [66956, 66962],
  [66964, 66965],
  [66967, 66977],
  [66979, 66993],
  [66995, 67001],
  [67003, 67004],
  [67072, 67382],
  [67392, 67413],
  [67424, 67431],
  [67456, 67461],
  [67463, 67504],
  [67506, 67514],
  [67584, 67589],
  [67592, 67592],
  [67594, 67637],
  [67639, 67640],
  [67644, 67644],
  [67647, 67669],
  [67672, 67702],
  [67705, 67742],
  [67751, 67759],
  [67808, 67826],
  [67828, 67829],
  [67835, 67867],
  [67872, 67897],
  [67968, 68023],
  [68028, 68047],
  [68050, 68096],
  [68112, 68115],
  [68117, 68119],
  [68121, 68149],
  [68160, 68168],
  [68192, 68222],
  [68224, 68255],
  [68288, 68295],
  [68297, 68324],
  [68331, 68335],
  [68352, 68405],
  [68416, 68437],
  [68440, 68466],
  [68472, 68497],
  [68521, 68527],
  [68608, 68680],
  [68736, 68786],
  [68800, 68850],
  [68858, 68899],
  [68912, 68921],
  [69216, 69246],
  [69248, 69289],
  [69296, 69297],
  [69376, 69415],
  [69424, 69445],
  [69457, 69460],
  [69488, 69505],
  [69552, 69579],
  [69600, 69622],
  [69635, 69687],
  [69714, 69743],
  [69745, 69746],
  [69749, 69749],
  [69763, 69807],
  [69840, 69864],
  [69872, 69881],
  [69891, 69926],
  [69942, 69951],
  [69956, 69956],
  [69959, 69959],
  [69968, 70002],
  [70006, 70006],
  [70019, 70066],
  [70081, 70084],
  [70096, 70106],
  [70108, 70108],
  [70113, 70132],
  [70144, 70161],
  [70163, 70187],
  [70272, 70278],
  [70280, 70280],
  [70282, 70285],
  [70287, 70301],
  [70303, 70312],
  [70320, 70366],
  [70384, 70393],
  [70405, 70412],
  [70415, 70416],
  [70419, 70440],
  [70442, 70448],
  [70450, 70451],
  [70453, 70457],
  [70461, 70461],
  [70480, 70480],
  [70493, 70497],
  [70656, 70708],
  [70727, 70730],
  [70736, 70745],
  [70751, 70753],
  [70784, 70831],
  [70852, 70853],
  [70855, 70855],
  [70864, 70873],
  [71040, 71086],
  [71128, 71131],
  [71168, 71215],
  [71236, 71236],
  [71248, 71257],
  [71296, 71338],
  [71352, 71352],
  [71360, 71369],
  [71424, 71450],
  [71472, 71483],
  [71488, 71494],
  [71680, 71723],
  [71840, 71922],
  [71935, 71942],
  [71945, 71945],
  [71948, 71955],
  [71957, 71958],
  [71960, 71983],
  [71999, 71999],
  [72001, 72001],
  [72016, 72025],
  [72096, 72103],
  [72106, 72144],
  [72161, 72161],
  [72163, 72163],
  [72192, 72192],
  [72203, 72242],
  [72250, 72250],
  [72272, 72272],
  [72284, 72329],
  [72349, 72349],
  [72368, 72440],
  [72704, 72712],
  [72714, 72750],
  [72768, 72768],
  [72784, 72812],
  [72818, 72847],
  [72960, 72966],
  [72968, 72969],
  [72971, 73008],
  [73030, 73030],
  [73040, 73049],
  [73056, 73061],
  [73063, 73064],
  [73066, 73097],
  [73112, 73112],
  [73120, 73129],
  [73440, 73458],
  [73648, 73648],
  [73664, 73684],
  [73728, 74649],
  [74752, 74862],
  [74880, 75075],
  [77712, 77808],
  [77824, 78894],
  [82944, 83526],
  [92160, 92728],
  [92736, 92766],
  [92768, 92777],
  [92784, 92862],
  [92864, 92873],
  [92880, 92909],
  [92928, 92975],
  [92992, 92995],
  [93008, 93017],
  [93019, 93025],
  [93027, 93047],
  [93053, 93071],
  [93760, 93846],
  [93952, 94026],
  [94032, 94032],
  [94099, 94111],
  [94176, 94177],
  [94179, 94179],
  [94208, 100343],
  [100352, 101589],
  [101632, 101640],
  [110576, 110579],
  [110581, 110587],
  [110589, 110590],
  [110592, 110882],
  [110928, 110930],
  [110948, 110951],
  [110960, 111355],
  [113664, 113770],
  [113776, 113788],
  [113792, 113800],
  [113808, 113817],
  [119520, 119539],
  [119648, 119672],
  [119808, 119892],
  [119894, 119964],
  [119966, 119967],
  [119970, 119970],
  [119973, 119974],
  [119977, 119980],
  [119982, 119993],
  [119995, 119995],
  [119997, 120003],
  [120005, 120069],
  [120071, 120074],
  [120077, 120084],
  [120086, 120092],
  [120094, 120121],
  [120123, 120126],
  [120128, 120132],
  [120134, 120134],
  [120138, 120144],
  [120146, 120485],
  [120488, 120512],
  [120514, 120538],
  [120540, 120570],
  [120572, 120596],
  [120598, 120628],
  [120630, 120654],
  [120656, 120686],
  [120688, 120712],
  [120714, 120744],
  [120746, 120770],
  [120772, 120779],
  [120782, 120831],
  [122624, 122654],
  [123136, 123180],
  [123191, 123197],
  [123200, 123209],
  [123214, 123214],
  [123536, 123565],
  [123584, 123627],
  [123632, 123641],
  [124896, 124902],
  [124904, 124907],
  [124909, 124910],
  [124912, 124926],
  [124928, 125124],
  [125127, 125135],
  [125184, 125251],
  [125259, 125259],
  [125264, 125273],
  [126065, 126123],
  [126125, 126127],
  [126129, 126132],
  [126209, 126253],
  [126255, 126269],
  [126464, 126467],
  [126469, 126495],
  [126497, 126498],
  [126500, 126500],
  [126503, 126503],
  [126505, 126514],
  [126516, 126519],
  [126521, 126521],
  [126523, 126523],
  [126530, 126530],
  [126535, 126535],
  [126537, 126537],
  [126539, 126539],
  [126541, 126543],
  [126545, 126546],
  [126548, 126548],
  [126551, 126551],
  [126553, 126553],
  [126555, 126555],
  [126557, 126557],
  [126559, 126559],
  [126561, 126562],
  [126564, 126564],
  [126567, 126570],
  [126572, 126578],
  [126580, 126583],
  [126585, 126588],
  [126590, 126590],
  [126592, 126601],
  [126603, 126619],
  [126625, 126627],
  [126629, 126633],
  [126635, 126651],
  [127232, 127244],
  [130032, 130041],
  [131072, 173791],
  [173824, 177976],
  [177984, 178205],
  [178208, 183969],
  [183984, 191456],
  [194560, 195101],
  [196608, 201546]
], space: [
  [9, 13],
  [32, 32],
  [160, 160],
  [5760, 5760],
  [8192, 8202],
  [8232, 8233],
  [8239, 8239],
  [8287, 8287],
  [12288, 12288],
  [65279, 65279]
] };

// src/word-diff.js
var rangeClass = (ranges) => ranges.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join("");
var WORD_CHARS = rangeClass(diff_words_default.word);
var SPACE_CHARS = rangeClass(diff_words_default.space);
var WORD_RE = new RegExp(`[${WORD_CHARS}]+|[${SPACE_CHARS}]+|[^${WORD_CHARS}${SPACE_CHARS}]`, "gu");
var SPACE_RE = new RegExp(`[${SPACE_CHARS}]`, "gu");
var SPACE_TOKEN = new RegExp(`^[${SPACE_CHARS}]`, "u");
function codePointLength(text) {
  let n = text.length;
  for (let i = 0; i + 1 < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 55296 || c > 56319) continue;
    const d = text.charCodeAt(i + 1);
    if (d >= 56320 && d <= 57343) {
      n--;
      i++;
    }
  }
  return n;
}
var WORD_DIFF_CELLS = 4e4;
var WORD_DIFF_MIN_SAME = 0.4;
function wordSegments(a, b) {
  const x = a.match(WORD_RE) ?? [];
  const y = b.match(WORD_RE) ?? [];
  if (x.length * y.length > WORD_DIFF_CELLS) return null;
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i2 = n - 1; i2 >= 0; i2--)
    for (let j2 = m - 1; j2 >= 0; j2--)
      lcs[i2][j2] = x[i2] === y[j2] ? lcs[i2 + 1][j2 + 1] + 1 : Math.max(lcs[i2 + 1][j2], lcs[i2][j2 + 1]);
  const left = [];
  const right = [];
  const push = (side, differs, text) => {
    const last = side[side.length - 1];
    if (last && last[0] === differs) last[1] += text;
    else side.push([differs, text]);
  };
  let same = 0;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      push(left, false, x[i]);
      push(right, false, y[j]);
      if (!SPACE_TOKEN.test(x[i])) same += codePointLength(x[i]);
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      push(right, true, y[j++]);
    } else {
      push(left, true, x[i++]);
    }
  }
  const visible = Math.max(codePointLength(a.replace(SPACE_RE, "")), codePointLength(b.replace(SPACE_RE, "")));
  if (visible > 0 && same / visible < WORD_DIFF_MIN_SAME) return null;
  return [left, right];
}

// src/diff-model.js
function classifyDiffLines(text) {
  const out = [];
  if (!text) return out;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let inHunk = true;
  for (const line of lines) {
    let kind;
    if (line.startsWith("diff --git ")) {
      kind = "file";
      inHunk = false;
    } else if (line.startsWith("@@")) {
      kind = "hunk";
      inHunk = true;
    } else if (!inHunk) {
      kind = "header";
    } else if (line.startsWith("+")) {
      kind = "add";
    } else if (line.startsWith("-")) {
      kind = "del";
    } else if (line.startsWith("\\") || line.startsWith("*** End of File")) {
      kind = "meta";
    } else {
      kind = "context";
    }
    out.push({ kind, text: line });
  }
  return out;
}
function splitTurnDiff(diff, blocks) {
  const list = Array.isArray(blocks) ? blocks : [];
  const entries = list.length ? list.map((b) => {
    const block = b && typeof b === "object" ? (
      /** @type {Record<string, unknown>} */
      b
    ) : {};
    const path = String(block.path ?? "");
    const old = String(block.old_path ?? "");
    const shown = old && old !== path ? `${old} → ${path}` : path;
    return { path: shown, key: path, text: String(block.diff ?? ""), cut: Number(block.cut_lines) || 0 };
  }) : diff ? [{ path: "turn diff", key: "", text: diff, cut: 0 }] : [];
  return entries.map(({ path, key, text, cut }) => ({ path, key, text, cut, ...countDiffLines(text) }));
}
function countDiffLines(text) {
  let added = 0;
  let removed = 0;
  let lines = 0;
  let inHunk = true;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    lines++;
    const c = text[at];
    if (c === "d" && text.startsWith("diff --git ", at)) inHunk = false;
    else if (c === "@" && text[at + 1] === "@") inHunk = true;
    else if (inHunk && c === "+") added++;
    else if (inHunk && c === "-") removed++;
    at = end + 1;
  }
  return { added, removed, lines };
}
function changeLabel(change) {
  const type = change?.type ?? "";
  if (type === "update" && change?.move_path) return "Move";
  return { add: "Add", delete: "Delete", update: "Update" }[type] ?? (type || "?");
}
function compareChanges(proposed, delta, meaning) {
  const changes = Array.isArray(delta?.changes) ? delta.changes : [];
  const used = /* @__PURE__ */ new Set();
  const open = !meaning.terminal;
  const notRun = meaning.dry_run || (meaning.user_declined || !meaning.wrote) && changes.length === 0;
  const rows = [];
  for (const [path, change] of Object.entries(proposed ?? {})) {
    const index = changes.findIndex((c, i) => !used.has(i) && c?.path === path);
    let applied = null;
    let state;
    if (index >= 0) {
      used.add(index);
      applied = changes[index];
      const wantMove = change?.move_path ?? null;
      const gotMove = applied?.move_path ?? null;
      state = applied?.type === change?.type && wantMove === gotMove ? "committed" : "differs";
    } else {
      state = open ? "pending" : notRun ? "not-run" : "missing";
    }
    rows.push({ path, change: change ?? null, state, applied });
  }
  changes.forEach((c, i) => {
    if (!used.has(i)) rows.push({ path: c?.path ?? "", change: null, state: "extra", applied: c });
  });
  return rows;
}
var HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
function diffRows(lines, newLines = 0) {
  const rows = [];
  let old = 0;
  let nu = 0;
  let numbered = false;
  let lastNew = 0;
  let offset = 0;
  for (const line of lines) {
    if (line.kind === "file" || line.kind === "header") {
      rows.push({ type: "header", text: line.text });
      continue;
    }
    if (line.kind === "hunk") {
      const m = HUNK_RE.exec(line.text);
      numbered = m !== null;
      if (m) {
        old = Number(m[1]) || 0;
        nu = Number(m[3]) || 0;
        const oldStart = m[2] === "0" ? old + 1 : old;
        const newStart = m[4] === "0" ? nu + 1 : nu;
        if (newStart - 1 > lastNew)
          rows.push({ type: "gap", from: lastNew + 1, to: newStart - 1, offset: oldStart - newStart });
        if (m[2] === "0") old++;
        if (m[4] === "0") nu++;
      }
      rows.push({ type: "hunk", text: line.text });
      continue;
    }
    if (line.kind === "meta") {
      rows.push({ type: "meta", text: line.text });
      continue;
    }
    const body = line.text.slice(1);
    if (line.kind === "add") {
      rows.push({ type: "line", kind: "add", text: body, old: null, new: numbered ? nu++ : null });
    } else if (line.kind === "del") {
      rows.push({ type: "line", kind: "del", text: body, old: numbered ? old++ : null, new: null });
    } else {
      const text = line.text.startsWith(" ") ? body : line.text;
      rows.push({ type: "line", kind: "context", text, old: numbered ? old++ : null, new: numbered ? nu++ : null });
    }
    if (numbered) {
      lastNew = nu - 1;
      offset = old - nu;
    }
  }
  if (newLines > lastNew && lastNew > 0)
    rows.push({ type: "gap", from: lastNew + 1, to: newLines, offset });
  return rows;
}
function pairWords(rows) {
  let i = 0;
  while (i < rows.length) {
    const dels = [];
    while (i < rows.length && isLine(rows[i], "del")) dels.push(rows[i++]);
    const adds = [];
    while (i < rows.length && isLine(rows[i], "add")) adds.push(rows[i++]);
    for (let k = 0; k < Math.min(dels.length, adds.length); k++) {
      const d = (
        /** @type {any} */
        dels[k]
      );
      const a = (
        /** @type {any} */
        adds[k]
      );
      const pair = wordSegments(d.text, a.text);
      if (pair) [d.words, a.words] = pair;
    }
    if (!dels.length && !adds.length) i++;
  }
  return rows;
}
function isLine(row, kind) {
  return row.type === "line" && row.kind === kind;
}
function sourceLines(ranges) {
  const map = /* @__PURE__ */ new Map();
  for (const range of arr(ranges)) {
    if (!Array.isArray(range) || typeof range[0] !== "number") continue;
    arr(range[1]).forEach((line, k) => {
      if (typeof line === "string" || Array.isArray(line)) map.set(range[0] + k, line);
    });
  }
  return map;
}
function lineRuns(text, source, words) {
  let runs = [{ cls: "", text }];
  if (Array.isArray(source)) {
    const syntax = source.filter((r) => Array.isArray(r) && typeof r[1] === "string").map((r) => ({ cls: /^[a-z]$/.test(str(r[0])) ? str(r[0]) : "", text: r[1] }));
    if (syntax.map((r) => r.text).join("") === text) runs = syntax;
  }
  if (!Array.isArray(words) || words.map((w2) => w2[1]).join("") !== text) return runs;
  const out = [];
  let w = 0;
  let wLeft = words.length ? words[0][1].length : 0;
  for (const run of runs) {
    let rest = run.text;
    while (rest.length) {
      while (wLeft === 0 && w < words.length - 1) wLeft = words[++w][1].length;
      const take = Math.min(rest.length, wLeft || rest.length);
      out.push({ cls: run.cls, text: rest.slice(0, take), differs: Boolean(words[w]?.[0]) });
      rest = rest.slice(take);
      wLeft -= take;
    }
  }
  return out;
}
var FOLDS = Object.freeze({ max: 60, head: 20, tail: 10, expand: 1e3 });
function foldRuns(rows, limits, open = /* @__PURE__ */ new Set()) {
  const out = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    const kind = row.type === "line" ? row.kind : null;
    let j = i + 1;
    if (kind) while (j < rows.length && isLine(rows[j], kind)) j++;
    const run = rows.slice(i, j);
    const id = `${kind}:${i}`;
    if (kind && run.length > limits.max && !open.has(id)) {
      out.push(...run.slice(0, limits.head));
      out.push({ type: "fold", id, rows: run.slice(limits.head, run.length - limits.tail) });
      out.push(...run.slice(run.length - limits.tail));
    } else {
      out.push(...run);
    }
    i = j;
  }
  return out;
}
function splitRows(rows) {
  const out = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    if (row.type !== "line") {
      out.push(row);
      i++;
      continue;
    }
    if (row.kind === "context") {
      out.push({ type: "pair", left: row, right: row });
      i++;
      continue;
    }
    const dels = [];
    while (i < rows.length && isLine(rows[i], "del")) dels.push(rows[i++]);
    const adds = [];
    while (i < rows.length && isLine(rows[i], "add")) adds.push(rows[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++)
      out.push({ type: "pair", left: dels[k] ?? null, right: adds[k] ?? null });
  }
  return out;
}
function changeBar(added, removed) {
  const total = added + removed;
  if (total === 0) return ["none", "none", "none", "none", "none"];
  const blocks = Math.min(5, total);
  let adds = Math.round(added / total * blocks);
  if (added > 0 && adds === 0) adds = 1;
  if (removed > 0 && adds === blocks) adds = blocks - 1;
  const dels = blocks - adds;
  return [...Array(adds).fill("add"), ...Array(dels).fill("del"), ...Array(5 - blocks).fill("none")];
}
function changeRows(change, source = {}) {
  if (change.type === "update") return diffRows(classifyDiffLines(str(change.unified_diff)), Number(source.new_lines) || 0);
  const text = str(change.content);
  const lines = text ? text.split("\n") : [];
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (change.type === "add")
    return lines.map((t, i) => ({ type: "line", kind: "add", text: t.replace(/\r$/, ""), old: null, new: i + 1 }));
  if (change.type === "delete")
    return lines.map((t, i) => ({ type: "line", kind: "del", text: t.replace(/\r$/, ""), old: i + 1, new: null }));
  return [];
}

// src/diff-table.js
var MODE_KEY = "applypatch-diff-mode";
function loadMode(storage) {
  try {
    return storage?.getItem(MODE_KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}
function saveMode(storage, mode) {
  try {
    if (!storage) return false;
    storage.setItem(MODE_KEY, mode === "split" ? "split" : "unified");
    return true;
  } catch {
    return false;
  }
}
function pageStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
var modes = {
  mode: loadMode(pageStorage()),
  /** @type {Set<(mode: string) => void>} */
  listeners: /* @__PURE__ */ new Set(),
  /** @param {string} mode */
  set(mode) {
    this.mode = mode === "split" ? "split" : "unified";
    saveMode(pageStorage(), this.mode);
    for (const fn of [...this.listeners]) fn(this.mode);
  }
};
function codeNodes(runs) {
  return runs.map(
    (r) => !r.cls && !r.differs ? r.text : h("span", {
      class: [r.cls ? `applypatch-hl-${r.cls}` : "", r.differs ? "applypatch-word" : ""].filter(Boolean).join(" "),
      text: r.text
    })
  );
}
var SIGNS = (
  /** @type {Record<string, string>} */
  { add: "+", del: "-", context: " " }
);
var KIND_WORDS = (
  /** @type {Record<string, string>} */
  { add: "added", del: "removed", context: "unchanged" }
);
function runsOf(row, sources) {
  const source = row.kind === "del" ? sources.old.get(row.old ?? -1) : sources.new.get(row.new ?? -1);
  return lineRuns(row.text, source, row.words);
}
function gutter(n, side) {
  return h("td", {
    class: `applypatch-gutter applypatch-gutter-${side}`,
    "data-line": n ?? null,
    "aria-hidden": "true",
    text: n === null ? "" : String(n)
  });
}
function wideRow(span, cls, ...children) {
  return h("tr", { class: cls }, h("td", { class: "applypatch-code", colspan: span }, ...children));
}
var PAIRED = /* @__PURE__ */ new WeakSet();
var SPAN = 4;
function halfCells(row, side, sources) {
  const kind = row === null ? "empty" : row.kind;
  const n = row === null ? null : side === "old" ? row.old : row.new;
  return [
    gutter(n, side),
    h(
      "td",
      {
        class: `applypatch-code applypatch-half applypatch-half-${kind}`,
        "aria-label": row === null ? "no line" : null
      },
      ...row === null ? [] : codeNodes(runsOf(row, sources))
    )
  ];
}
function unifiedLine(row, sources) {
  return h(
    "tr",
    { class: `applypatch-dl applypatch-dl-${row.kind}`, "data-kind": row.kind },
    gutter(row.old, "old"),
    gutter(row.new, "new"),
    h("td", { class: "applypatch-sign", "aria-label": KIND_WORDS[row.kind], text: SIGNS[row.kind] }),
    h("td", { class: "applypatch-code" }, ...codeNodes(runsOf(row, sources)))
  );
}
function gapLines(row, sources) {
  const known = [];
  for (let n = row.from; n <= row.to; n++) {
    const source = sources.new.get(n);
    if (source === void 0) continue;
    const text = typeof source === "string" ? source : source.map((r) => r[1]).join("");
    known.push({ type: "line", kind: "context", text, old: n + row.offset, new: n });
  }
  return known;
}
var TableRows = class {
  /**
   * @param {boolean} split
   * @param {Sources} sources
   * @param {Set<string>} opened
   * @param {(id: string) => void} onOpen
   */
  constructor(split, sources, opened, onOpen) {
    this.split = split;
    this.sources = sources;
    this.opened = opened;
    this.onOpen = onOpen;
    this.trs = [];
  }
  /** @param {string} cls @param {...(Node | string | null)} children */
  wide(cls, ...children) {
    this.trs.push(wideRow(SPAN, cls, ...children));
  }
  /** @param {string} id @param {number} count @param {string} what */
  button(id, count, what) {
    const b = h("button", {
      type: "button",
      class: "applypatch-expand",
      "data-fold": id,
      "aria-expanded": "false",
      "aria-label": `Show ${count} ${what} line${count === 1 ? "" : "s"}`,
      text: `⋯ Show ${count} ${what} line${count === 1 ? "" : "s"}`
    });
    b.addEventListener("click", () => this.onOpen(id));
    return b;
  }
  /** @param {any} row a Row, or a pair of the split view (see splitRows) */
  row(row) {
    if (row.type === "header") this.wide("applypatch-dl applypatch-dl-header", row.text);
    else if (row.type === "hunk") this.wide("applypatch-dl applypatch-dl-hunk", row.text);
    else if (row.type === "meta") this.wide("applypatch-dl applypatch-dl-meta", row.text);
    else if (row.type === "pair") {
      const kind = row.left === row.right ? "context" : "change";
      const cells = [...halfCells(row.left, "old", this.sources), ...halfCells(row.right, "new", this.sources)];
      this.trs.push(h("tr", { class: `applypatch-dl applypatch-dl-${kind}` }, ...cells));
    } else if (row.type === "line") this.trs.push(unifiedLine(row, this.sources));
  }
  /** @param {Row[]} rows plain rows, drawn together so that the split view pairs them */
  all(rows) {
    for (const row of this.split ? splitRows(rows) : rows) this.row(row);
  }
  /** @param {Row[]} rows @param {string} id */
  fold(rows, id) {
    if (this.opened.has(id)) {
      this.rows(rows.slice(0, FOLDS.expand), `${id}/`, Infinity, false);
      if (rows.length > FOLDS.expand) this.fold(rows.slice(FOLDS.expand), `${id}+`);
    } else {
      this.wide("applypatch-dl applypatch-dl-fold", this.button(id, rows.length, "more"));
    }
  }
  /** @param {Row & {type: "gap"}} row */
  gap(row) {
    const id = `gap:${row.from}`;
    const count = row.to - row.from + 1;
    const known = gapLines(row, this.sources);
    const cls = "applypatch-dl applypatch-dl-gap";
    if (this.opened.has(id) && known.length) this.openGap(row, known);
    else if (known.length) this.wide(cls, this.button(id, known.length, "unchanged"));
    else this.wide(cls, `⋯ ${count} unchanged line${count === 1 ? "" : "s"}`);
  }
  /**
   * An opened gap: the lines sent, and a marker where the ones not sent would be.
   * @param {Row & {type: "gap"}} row
   * @param {(Row & {type: "line", new: number})[]} known
   */
  openGap(row, known) {
    let next = row.from;
    let block = [];
    const hole = (upto) => {
      if (upto <= next) return;
      this.all(block);
      block = [];
      const n = upto - next;
      this.wide("applypatch-dl applypatch-dl-gap", `⋯ ${n} unchanged line${n === 1 ? "" : "s"} not sent to the view`);
    };
    for (const line of known) {
      hole(line.new);
      block.push(line);
      next = line.new + 1;
    }
    hole(row.to + 1);
    this.all(block);
  }
  /**
   * @param {Row[]} rows
   * @param {string} prefix of the ids of the folds inside
   * @param {number} limit how many rows before the rest is one fold
   * @param {boolean} fold whether long runs fold (not inside a fold the reader opened)
   */
  rows(rows, prefix, limit, fold) {
    const entries = fold ? foldRuns(rows, FOLDS) : rows;
    let run = [];
    let count = 0;
    for (let k = 0; k < entries.length; k++) {
      const row = entries[k];
      if (count >= limit) {
        this.all(run);
        this.fold(entries.slice(k).flatMap((e) => e.type === "fold" ? e.rows : [e]), `${prefix}rest`);
        return;
      }
      count++;
      if (row.type !== "fold" && row.type !== "gap") {
        run.push(row);
        continue;
      }
      this.all(run);
      run = [];
      if (row.type === "fold") this.fold(row.rows, prefix + row.id);
      else this.gap(row);
    }
    this.all(run);
  }
};
function columns(split) {
  const col = (cls) => h("col", cls ? { class: `applypatch-col-${cls}` } : null);
  return split ? h("colgroup", null, col("gutter"), col("half"), col("gutter"), col("half")) : h("colgroup", null, col("gutter"), col("gutter"), col("sign"), col(null));
}
function diffTable(file, mode, opened, onOpen) {
  if (!PAIRED.has(file.rows)) {
    pairWords(file.rows);
    PAIRED.add(file.rows);
  }
  const split = mode === "split";
  const table = new TableRows(split, file.sources, opened, onOpen);
  table.rows(file.rows, "", file.limit ?? Infinity, true);
  return h(
    "table",
    {
      class: `applypatch-dt applypatch-dt-${mode}${file.preview ? " applypatch-dt-preview" : ""}`,
      "data-mode": mode,
      tabindex: "-1",
      "aria-label": split ? "diff, side by side: old on the left, new on the right" : "diff, unified"
    },
    columns(split),
    h("tbody", null, ...table.trs)
  );
}
function sourcesOf(entry) {
  const e = obj(entry);
  return { old: sourceLines(e.old), new: sourceLines(e.new) };
}

// src/diff-view.js
function fileBlock(f, state) {
  const opened = state.opened.get(f.id) ?? /* @__PURE__ */ new Set();
  state.opened.set(f.id, opened);
  const body = h("div", { class: "applypatch-file-body" });
  const view = {
    get rows() {
      return f.rows;
    },
    sources: f.sources,
    preview: Boolean(f.preview),
    limit: f.limit
  };
  const summary = h(
    "summary",
    { class: "applypatch-file-head", "aria-label": `${f.path}: ${f.added} added, ${f.removed} removed lines` },
    ...f.head,
    countsNode(f.added, f.removed)
  );
  const details = (
    /** @type {HTMLDetailsElement} */
    h(
      "details",
      { class: "applypatch-file", "data-file": f.id, open: state.openFiles.get(f.id) ?? f.open, ...f.attrs ?? {} },
      summary,
      body
    )
  );
  const estimate = () => {
    const open = typeof details.open === "boolean" ? details.open : details.getAttribute("open") !== null;
    const rows = open ? Math.min(f.count ?? f.rows.length, f.limit ?? Infinity) : 0;
    details.style?.setProperty?.("contain-intrinsic-size", `auto calc(1.6em + ${Math.min(rows * 1.5, 36)}em)`);
  };
  details.addEventListener("toggle", estimate);
  estimate();
  const cut = f.cut ? h("div", {
    class: "applypatch-more applypatch-cut",
    text: `✂ ${moreText(f.cut)} not sent to the view, cut for size (the call has them all)`
  }) : null;
  return lazyFold(details, summary, f.id, state, function draw() {
    fill(
      body,
      diffTable(view, state.mode, opened, (id) => {
        opened.add(id);
        draw();
        body.firstElementChild?.focus?.();
      }),
      cut
    );
  });
}
function lazyFold(details, summary, id, state, draw) {
  let drawn = "";
  const isOpen = () => typeof details.open === "boolean" ? details.open : details.getAttribute("open") !== null;
  const show = () => {
    if (isOpen() && drawn !== state.mode) {
      drawn = state.mode;
      draw();
    }
  };
  details.addEventListener("toggle", () => {
    state.openFiles.set(id, isOpen());
    show();
  });
  show();
  return {
    el: details,
    summary,
    redraw() {
      drawn = "";
      show();
    },
    /** @param {boolean} open */
    setOpen(open) {
      details.open = open;
      state.openFiles.set(id, open);
      show();
    }
  };
}
function countsNode(added, removed) {
  return h(
    "span",
    { class: "applypatch-counts" },
    h("span", { class: "applypatch-diff-add", text: ` +${added}` }),
    h("span", { class: "applypatch-diff-del", text: ` -${removed}` }),
    h(
      "span",
      { class: "applypatch-bar", "aria-hidden": "true" },
      ...changeBar(added, removed).map((b) => h("span", { class: `applypatch-bar-${b}` }))
    )
  );
}
function toggleButton(text, label, pressed, testid) {
  return (
    /** @type {HTMLButtonElement} */
    h("button", { type: "button", class: "applypatch-tool", "aria-label": label, "aria-pressed": String(pressed), "data-testid": testid, text })
  );
}
function toolButton(text, label, fn) {
  const b = h("button", { type: "button", class: "applypatch-tool", "aria-label": label, text });
  b.addEventListener("click", fn);
  return b;
}
function viewToolbar(state, options) {
  const unified = toggleButton("Unified", "unified view", state.mode === "unified", "applypatch-mode-unified");
  const split = toggleButton("Split", "split view: old and new side by side", state.mode === "split", "applypatch-mode-split");
  const headers = options.headers ? toggleButton("Show headers", "show the diff --git and index lines", false, "applypatch-headers") : null;
  const all = (
    /** @param {boolean} open */
    (open) => {
      for (const b of state.blocks) b.setOpen(open);
    }
  );
  const onMode = (mode) => {
    state.mode = mode;
    unified.setAttribute("aria-pressed", String(mode === "unified"));
    split.setAttribute("aria-pressed", String(mode === "split"));
    for (const b of state.blocks) b.redraw();
  };
  unified.addEventListener("click", () => modes.set("unified"));
  split.addEventListener("click", () => modes.set("split"));
  modes.listeners.add(onMode);
  const toolbar = h(
    "div",
    { class: "applypatch-toolbar", role: "toolbar", "aria-label": "diff view" },
    h("span", { class: "applypatch-group", role: "group", "aria-label": "view mode" }, unified, split),
    headers,
    toolButton("Expand all", "expand every file", () => all(true)),
    toolButton("Collapse all", "collapse every file", () => all(false)),
    ...options.extra ?? []
  );
  const bindHeaders = (body) => {
    headers?.addEventListener("click", () => {
      state.showHeaders = !state.showHeaders;
      headers.setAttribute("aria-pressed", String(state.showHeaders));
      headers.textContent = state.showHeaders ? "Hide headers" : "Show headers";
      body.className = `applypatch-section-body${state.showHeaders ? " applypatch-show-headers" : ""}`;
    });
  };
  return { toolbar, bindHeaders, dispose: () => modes.listeners.delete(onMode) };
}
function blockMaker(state) {
  let made = /* @__PURE__ */ new Map();
  let generation = 0;
  const start = () => {
    const mine = ++generation;
    const next = /* @__PURE__ */ new Map();
    state.blocks = [];
    const make = (f) => {
      if (mine !== generation) return null;
      const before = made.get(f.id);
      const same = before && f.sig && sameSig(before.sig, f.sig);
      const block = same ? before.block : fileBlock(f, state);
      if (f.sig) next.set(f.id, { sig: f.sig, block });
      state.blocks.push(block);
      return block;
    };
    make.done = () => {
      if (mine === generation) made = next;
    };
    return make;
  };
  const blocks = (files) => {
    const make = start();
    for (const f of files) make(f);
    make.done();
    return state.blocks.map((b) => b.el);
  };
  return { start, blocks };
}
function diffViewState(options) {
  const state = { mode: modes.mode, opened: /* @__PURE__ */ new Map(), openFiles: /* @__PURE__ */ new Map(), showHeaders: false, blocks: [] };
  return { state, ...viewToolbar(state, options), ...blockMaker(state) };
}
function sameSig(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
function fileList(files, blocks) {
  return h(
    "ul",
    { class: "applypatch-filelist", "aria-label": "files" },
    ...files.map((f, i) => {
      const b = h(
        "button",
        { type: "button", class: "applypatch-jump", "aria-label": `go to ${f.path}: +${f.added} -${f.removed}` },
        h("code", { text: f.path }),
        countsNode(f.added, f.removed)
      );
      b.addEventListener("click", () => {
        const target = blocks[i];
        if (!target) return;
        target.setOpen(true);
        target.el.scrollIntoView?.({ block: "start", behavior: "smooth" });
        target.summary.focus?.();
      });
      return h("li", null, b);
    })
  );
}
function changeFile(path, change, cwd, row, sources, preview) {
  const label = changeLabel(change);
  const source = obj(sources[path]);
  const whole = change.type === "add" || change.type === "delete";
  let made = whole ? null : changeRows(change, source);
  const count = made ? made.length : lineCount(str(change.content));
  const rowsOf = () => made ??= changeRows(change, source);
  const move = change.move_path ? relativePath(str(change.move_path), cwd) : "";
  const state = row?.state ?? "";
  const stateText = {
    committed: "✓ committed",
    missing: "✗ not written",
    differs: `≠ committed as ${changeLabel(row?.applied)} ${relativePath(str(row?.applied?.move_path ?? row?.applied?.path), cwd)}`,
    pending: "… pending",
    "not-run": "– nothing written",
    extra: "+ committed, not in the verified map"
  }[state];
  const head = [
    h("span", { class: `applypatch-kind applypatch-kind-${label.toLowerCase()}`, text: label }),
    h("code", { class: "applypatch-path", text: relativePath(path, cwd) }),
    move ? h("span", { class: "applypatch-arrow", text: " → " }) : null,
    move ? h("code", { class: "applypatch-path", text: move }) : null,
    stateText ? h("span", { class: `applypatch-state applypatch-state-${state}`, text: stateText }) : null,
    source.language ? h("span", { class: "applypatch-lang", text: str(source.language) }) : null,
    source.cut ? h("span", { class: "applypatch-lang", text: "colours cut for size or time", title: "some lines are shown without colours: there were too many, or colouring them took too long" }) : null
  ];
  const cut = Number(change.cut_lines) || 0;
  const added = made ? made.filter((r) => isLine(r, "add")).length : change.type === "add" ? count + cut : 0;
  const removed = made ? made.filter((r) => isLine(r, "del")).length : change.type === "delete" ? count + cut : 0;
  return {
    id: `${label}:${path}`,
    path: relativePath(path, cwd),
    head,
    // what the block is made from: the same again, the block made last time is kept
    sig: [cwd, label, state, stateText, move, preview, str(change.content), str(change.unified_diff), cut, JSON.stringify(source)],
    cut,
    get rows() {
      return rowsOf();
    },
    count,
    sources: sourcesOf(source),
    preview,
    limit: LIMITS.fileDiffLines,
    // a short diff is shown at once; a long one waits for the reader
    open: count <= LIMITS.changeDiffLines,
    added,
    removed,
    attrs: {
      class: `applypatch-file applypatch-change${state ? ` applypatch-change-${state}` : ""}`,
      "data-path": path,
      "data-state": state || null
    }
  };
}
function renderFiles(view, files) {
  const withRows = files.filter((f) => f.count);
  let budget = LIMITS.diffLines;
  for (const f of withRows) {
    const shown = Math.min(f.count, f.limit ?? Infinity);
    if (f.open && shown > budget) f.open = false;
    else if (f.open) budget -= shown;
  }
  const make = view.start();
  const box = h("div", { class: "applypatch-files" });
  const list = withRows.length > 1 ? fileList(withRows, view.state.blocks) : null;
  let next = 0;
  const slice = (least) => {
    const until = clock() + SLICES.ms;
    for (let made = 0; next < files.length; made++) {
      if (made >= least && clock() > until) {
        box.setAttribute("data-rendering", "");
        setTimeout(() => slice(1), 0);
        return;
      }
      const f = files[next++];
      const block = f.count ? make(f) : null;
      if (f.count && !block) return;
      box.append(
        block?.el ?? h("div", f.attrs, h("div", { class: "applypatch-change-head applypatch-file-head" }, ...f.head))
      );
    }
    make.done();
    if (least < SLICES.first) box.removeAttribute("data-rendering");
  };
  slice(SLICES.first);
  return [list, box];
}
var SLICES = Object.freeze({ first: 20, ms: 25 });
var clock = () => globalThis.performance?.now?.() ?? Date.now();

// src/notebooks.js
var NOTEBOOK_VIEWS = Object.freeze([
  { key: "proposed", label: "proposed, nothing written" },
  { key: "committed", label: "committed" },
  { key: "turn", label: "in the TurnDiff" }
]);
var sameAsText = (nb) => nb.same_as === "committed" ? "the same change as committed above: this call is the turn's only change to it" : "";
function cellTitle(entry) {
  const num = (v) => typeof v === "number" ? v : null;
  const old = num(entry.old_index);
  const nu = num(entry.new_index);
  const where = old !== null && nu !== null && old !== nu ? `cell ${old} → ${nu}` : `cell ${nu ?? old ?? "?"}`;
  const id = entry.id ? ` · id ${str(entry.id)}` : "";
  return `${where}${id} · ${str(entry.cell_type) || "no cell_type"}`;
}
function cellRows(entry) {
  const source = str(entry.source);
  if (entry.source_diff) return diffRows(classifyDiffLines(str(entry.source_diff)), lineCount(source));
  if (entry.status === "added") return changeRows({ type: "add", content: source });
  if (entry.status === "removed") return changeRows({ type: "delete", content: source });
  return [];
}
function cellExtras(entry) {
  const out = [];
  const outputs = obj(entry.outputs);
  if (outputs.summary) out.push({ name: "outputs", summary: str(outputs.summary), rows: diffRows(classifyDiffLines(str(outputs.diff))) });
  if (Array.isArray(entry.execution_count)) {
    const [a, b] = entry.execution_count.map((n) => typeof n === "number" ? String(n) : "none");
    out.push({ name: "execution count", summary: `${a} → ${b}`, rows: [] });
  }
  const metadata = obj(entry.metadata);
  if (metadata.summary || metadata.diff)
    out.push({ name: "metadata", summary: str(metadata.summary), rows: diffRows(classifyDiffLines(str(metadata.diff))) });
  return out;
}
function extrasBlock(id, title, extras, state) {
  const names = extras.map((e) => e.name).join(", ");
  const summary = h("summary", { class: "applypatch-nb-extra-head", "aria-label": `${names} of ${title}` }, names);
  const body = h("div", { class: "applypatch-nb-extra-body" });
  const details = (
    /** @type {HTMLDetailsElement} */
    h("details", { class: "applypatch-nb-extra", "data-testid": "applypatch-nb-extra", "data-cell-extra": id, open: state.openFiles.get(id) ?? false }, summary, body)
  );
  return lazyFold(details, summary, id, state, () => {
    fill(
      body,
      ...extras.map((extra) => {
        const tableId = `${id}/${extra.name}`;
        const opened = state.opened.get(tableId) ?? /* @__PURE__ */ new Set();
        state.opened.set(tableId, opened);
        const box = h("div", { class: "applypatch-file-body" });
        const table = () => fill(
          box,
          diffTable({ rows: extra.rows, sources: sourcesOf({}), preview: false, limit: LIMITS.fileDiffLines }, state.mode, opened, (fold) => {
            opened.add(fold);
            table();
            box.firstElementChild?.focus?.();
          })
        );
        if (extra.rows.length) table();
        return h(
          "div",
          { class: "applypatch-nb-extra-item", "data-extra": extra.name },
          h("div", null, h("span", { class: "applypatch-label", text: `${extra.name}: ` }), extra.summary),
          extra.rows.length ? box : null
        );
      })
    );
  });
}
function unchangedRange(entry) {
  const at = arr(entry.new_indices).length ? arr(entry.new_indices) : arr(entry.old_indices);
  const first = at[0];
  const last = at[at.length - 1];
  if (typeof first !== "number") return "";
  return first === last ? ` (cell ${first})` : ` (cells ${first}–${last})`;
}
var NotebookFiles = class {
  constructor() {
    this.files = [];
    this.extras = [];
    this.budget = LIMITS.diffLines;
  }
  /**
   * @param {string} id @param {string} path @param {(Node | string | null)[]} head @param {Row[]} rows
   * @param {boolean} open @param {Record<string, any>} attrs @param {Sources} [sources]
   */
  file(id, path, head, rows, open, attrs, sources = sourcesOf({})) {
    const shownRows = Math.min(rows.length, LIMITS.fileDiffLines);
    const opens = open && shownRows <= this.budget;
    if (opens) this.budget -= shownRows;
    const added = rows.filter((r) => isLine(r, "add")).length;
    const removed = rows.filter((r) => isLine(r, "del")).length;
    this.files.push({ id, path, head, rows, sources, limit: LIMITS.fileDiffLines, open: opens, added, removed, attrs });
  }
  /** @param {Record<string, any>} entry @param {number} i @param {string} base @returns {CellItem} */
  cell(entry, i, base) {
    const status = /^[a-z-]+$/.test(str(entry.status)) ? str(entry.status) : "unknown";
    if (typeof entry.count === "number")
      return { kind: "fold", text: `⋯ ${plural(entry.count, "unchanged cell")}${unchangedRange(entry)}` };
    const id = `${base}:cell:${entry.id ?? ""}:${entry.old_index ?? ""}:${entry.new_index ?? ""}:${i}`;
    const title = cellTitle(entry);
    const changes = arr(entry.changes).map(str);
    const what = changes.length ? `changed: ${changes.join(", ")}` : "";
    const head = [
      h("span", { class: `applypatch-nb-status applypatch-nb-status-${status}`, text: status }),
      h("span", { class: "applypatch-nb-cell-title", text: title }),
      what ? h("span", { class: "applypatch-nb-changes", text: what }) : null
    ];
    const source = str(entry.source);
    const sources = entry.source_diff ? sourcesOf({ new: [[1, source.split("\n")]] }) : sourcesOf({});
    const attrs = { class: "applypatch-file applypatch-nb-source", "data-testid": "applypatch-nb-source" };
    this.file(id, `${status} ${title}`, head, cellRows(entry), status !== "unchanged", attrs, sources);
    const extras = cellExtras(entry);
    if (extras.length) this.extras.push({ id: `${id}:extra`, title, extras });
    return { kind: "cell", id, status, head, extras: extras.length ? `${id}:extra` : null, entry };
  }
  /**
   * @param {{key: string, label: string, nb: Record<string, any>}} shown @param {number} n @param {string} cwd
   * @returns {NotebookLayout}
   */
  notebook({ key, label, nb }, n, cwd) {
    const path = str(nb.path);
    const shownPath = relativePath(path, cwd);
    const base = `nb:${key}:${n}:${path}`;
    const same = sameAsText(nb);
    const layout = { key, label, nb, path, shownPath, base, same, items: [], cellsHidden: 0, metadata: false, raw: false };
    if (same) return layout;
    const { shown: cellsShown, hidden: cellsHidden } = truncate(arr(nb.cells).map(obj), LIMITS.rows);
    const items = cellsShown.map((entry, i) => this.cell(entry, i, base));
    const metadata = obj(nb.metadata);
    if (metadata.diff) {
      const head = [h("span", { class: "applypatch-label", text: "notebook metadata: " }), str(metadata.summary)];
      const rows = diffRows(classifyDiffLines(str(metadata.diff)));
      this.file(`${base}:metadata`, "notebook metadata", head, rows, false, { class: "applypatch-file applypatch-nb-metadata" });
    }
    const rawRows = diffRows(classifyDiffLines(str(nb.raw_diff)));
    const rawHead = [h("span", { class: "applypatch-label", text: "Raw JSON diff" }), h("span", { class: "applypatch-lang", text: "what the patch changed" })];
    const rawAttrs = { class: "applypatch-file applypatch-nb-raw", "data-testid": "applypatch-nb-raw" };
    this.file(`${base}:raw`, `raw JSON diff of ${shownPath}`, rawHead, rawRows, nb.ok === false, rawAttrs);
    return { ...layout, items, cellsHidden, metadata: Boolean(metadata.diff), raw: rawRows.length > 0 };
  }
};
function notebookHead(l, cwd) {
  const nb = l.nb;
  const kind = changeLabel({ type: str(nb.kind), move_path: nb.moved_from ? str(nb.moved_from) : null });
  const version = obj(nb.nbformat);
  const matched = nb.matched_by ? `cells matched by ${str(nb.matched_by)}` : "";
  return h(
    "div",
    { class: "applypatch-nb-head" },
    h("span", { class: `applypatch-kind applypatch-kind-${kind.toLowerCase()}`, text: kind }),
    h("code", { class: "applypatch-path", text: l.shownPath }),
    nb.moved_from ? h("span", { class: "applypatch-lang", text: `moved from ${relativePath(str(nb.moved_from), cwd)}` }) : null,
    h("span", { class: `applypatch-nb-view applypatch-nb-view-${l.key}`, text: l.label }),
    h("span", { class: "applypatch-nb-summary", text: str(nb.summary) }),
    version.after || version.before ? h("span", { class: "applypatch-lang", text: `nbformat ${str(version.after || version.before)}` }) : null,
    matched ? h("span", { class: "applypatch-lang", text: matched }) : null
  );
}
function notebookNotes(l) {
  const nb = l.nb;
  if (l.same) return [h("div", { class: "applypatch-nb-same", role: "note", text: l.same })];
  const validation = obj(nb.validation);
  return [
    nb.ok === false ? h("div", { class: "applypatch-nb-reason", role: "note", text: `The cells cannot be shown: ${str(nb.reason)}. The raw JSON diff below is what the patch changed.` }) : null,
    validation.after ? h("div", { class: "applypatch-nb-invalid", role: "note", text: `invalid notebook: ${str(validation.after)}` }) : null,
    validation.before && validation.before !== validation.after ? h("div", { class: "applypatch-nb-was-invalid", text: `before the patch, already an invalid notebook: ${str(validation.before)}` }) : null
  ];
}
function cellList(l, fileOf) {
  if (!l.items.length) return null;
  const plain = (head) => h("div", { class: "applypatch-file-head applypatch-nb-plain" }, ...head);
  return h(
    "ol",
    { class: "applypatch-nb-cells", "aria-label": `cells of ${l.shownPath}` },
    ...l.items.map(
      (item) => item.kind === "fold" ? h("li", { class: "applypatch-nb-unchanged", "data-testid": "applypatch-nb-unchanged", text: item.text }) : h(
        "li",
        { class: `applypatch-nb-cell applypatch-nb-cell-${item.status}`, "data-status": item.status, "data-cell": item.entry.id ?? null },
        fileOf(item.id) ?? plain(item.head),
        item.extras ? fileOf(item.extras) : null
      )
    )
  );
}
function notebookBlock(l, cwd, fileOf) {
  const attrs = { class: "applypatch-nb", "data-testid": "applypatch-nb", "data-path": l.path, "data-view": l.key, role: "group" };
  return h(
    "div",
    { ...attrs, "aria-label": `notebook ${l.shownPath}, ${l.label}: ${str(l.nb.summary)}` },
    notebookHead(l, cwd),
    ...notebookNotes(l),
    cellList(l, fileOf),
    l.cellsHidden ? h("div", { class: "applypatch-more", text: moreText(l.cellsHidden, "cell") }) : null,
    l.metadata ? fileOf(`${l.base}:metadata`) : null,
    l.same ? null : l.raw ? fileOf(`${l.base}:raw`) : h("div", { class: "applypatch-nb-plain applypatch-lang", text: "raw JSON diff: no change" })
  );
}
function notebooksSection(views = NOTEBOOK_VIEWS, title = "Notebooks as cells", testid = "applypatch-notebooks", open = true) {
  const { el, note, body } = section(title, testid, open);
  const view = diffViewState({});
  const update = ({ notebooks, cwd }) => {
    const all = views.flatMap(({ key, label }) => arr(notebooks[key]).map((nb) => ({ key, label, nb: obj(nb) })));
    el.hidden = all.length === 0;
    const labels = views.map(({ key, label }) => [arr(notebooks[key]).length, label]).filter(([n]) => n);
    note.textContent = labels.map(([n, label]) => ` ${plural(Number(n), "notebook")} ${label}`).join(";");
    const { shown, hidden } = truncate(all, LIMITS.rows);
    const made = new NotebookFiles();
    const layouts = shown.map((nb, n) => made.notebook(nb, n, cwd));
    const withRows = made.files.filter((f) => f.rows.length);
    const els = view.blocks(withRows);
    const byId = new Map(withRows.map((f, i) => [f.id, els[i]]));
    for (const spec of made.extras) {
      const block = extrasBlock(spec.id, spec.title, spec.extras, view.state);
      view.state.blocks.push(block);
      byId.set(spec.id, block.el);
    }
    const fileOf = (id) => byId.get(id) ?? null;
    fill(
      body,
      withRows.length ? view.toolbar : null,
      ...layouts.map((l) => notebookBlock(l, cwd, fileOf)),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "notebook") }) : null
    );
  };
  return { el, update, dispose: view.dispose };
}

// src/sections/call.js
function headerSection() {
  const title = h("span", { class: "applypatch-title" });
  const dryBadge = h("span", { class: "applypatch-badge applypatch-badge-dry", text: "dry run", hidden: true });
  const status = h("span", { class: "applypatch-status", "data-testid": "applypatch-status" });
  const summary = h("span", { class: "applypatch-summary" });
  const el = h("div", { class: "applypatch-header" }, title, dryBadge, status, summary);
  const cwd = h("div", { class: "applypatch-cwd" });
  const update = (s) => {
    title.textContent = s.title || "apply_patch";
    dryBadge.hidden = !s.dryRun || s.meaning.dry_run;
    status.textContent = s.meaning.label || "…";
    const unknown = s.meaning.known ? "" : " applypatch-status-unknown";
    status.className = `applypatch-status applypatch-tone-${s.meaning.tone}${unknown}`;
    status.setAttribute("data-status", s.status);
    summary.textContent = s.summary;
    cwd.textContent = s.cwd ? `in ${s.cwd}` : "";
  };
  return { el, cwd, update };
}
function stagesSection() {
  const el = h("ol", { class: "applypatch-stages", "data-testid": "applypatch-stage" });
  const update = (s) => {
    el.setAttribute("data-stage", s.stage);
    fill(
      el,
      ...stageStates(s.stages, s.stage, s.meaning, s.eventTypes).map(
        (st) => h("li", {
          class: `applypatch-stage applypatch-stage-${st.state}`,
          "aria-current": st.state === "active" ? "step" : null,
          title: STAGE_TITLES[st.state] ?? null,
          text: st.label
        })
      )
    );
  };
  return { el, update };
}
function safetySection() {
  const el = h("div", { class: "applypatch-safety" });
  const update = ({ safety, meanings, review = {} }) => {
    el.hidden = !safety.decision;
    if (el.hidden) {
      fill(el);
      return;
    }
    const decision = str(safety.decision);
    const meaning = Object.prototype.hasOwnProperty.call(meanings, decision) ? obj(meanings[decision]) : {};
    const tone = /^[a-z-]+$/.test(str(meaning.tone)) ? str(meaning.tone) : "neutral";
    fill(
      el,
      "safety: ",
      h("span", {
        class: `applypatch-badge applypatch-safety-tone-${tone}`,
        "data-decision": decision,
        text: str(meaning.label) || decision
      }),
      safety.sandboxed ? h("span", { class: "applypatch-badge", text: "sandboxed" }) : null,
      ...reviewNote(safety, review),
      safety.reason ? h("span", { class: "applypatch-reason", text: str(safety.reason) }) : null
    );
  };
  return { el, update };
}
function reviewNote(safety, meaning) {
  if (safety.review !== true) return [];
  const tone = /^[a-z-]+$/.test(str(meaning.tone)) ? str(meaning.tone) : "waiting";
  return [
    h("span", {
      class: `applypatch-badge applypatch-safety-tone-${tone}`,
      "data-testid": "applypatch-safety-review",
      text: str(meaning.label) || "asked because of --review"
    }),
    meaning.reason ? h("span", { class: "applypatch-reason", text: str(meaning.reason) }) : null
  ];
}
function patchSection(open) {
  const { el, note, body } = section("Patch text", "applypatch-patch-text", open);
  const pre = h("pre", { class: "applypatch-patch" });
  const status = h("span", { class: "applypatch-tool-note", role: "status" });
  const copy = h("button", {
    type: "button",
    class: "applypatch-tool",
    "data-testid": "applypatch-copy-patch",
    "aria-label": "copy the patch text to the clipboard",
    text: "Copy patch"
  });
  let full = "";
  copy.addEventListener("click", () => copyText(full, status, "patch"));
  body.append(h("div", { class: "applypatch-toolbar", role: "toolbar", "aria-label": "patch text" }, copy, status), pre);
  let follow = true;
  pre.addEventListener("scroll", () => {
    follow = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 48;
  });
  let scrolling = false;
  const toEnd = () => {
    scrolling = false;
    if (follow) pre.scrollTop = pre.scrollHeight;
  };
  const update = ({ text, current, truncated }) => {
    full = text;
    const lines = text ? text.split("\n") : [];
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const { start, end } = windowLines(lines.length, current, LIMITS.patchLines);
    const width = String(end).length;
    fill(
      pre,
      start > 0 ? h("span", { class: "applypatch-more", text: moreText(start, "line", "earlier") }) : null,
      ...lines.slice(start, end).map((line, i) => {
        const n = start + i + 1;
        return h(
          "span",
          { class: `applypatch-line${n === current ? " applypatch-current" : ""}`, "data-line": n },
          h("span", { class: "applypatch-lineno", text: String(n).padStart(width) }),
          line || " "
        );
      }),
      end < lines.length ? h("span", { class: "applypatch-more", text: moreText(lines.length - end) }) : null,
      truncated ? h("span", {
        class: "applypatch-truncated",
        text: "✂ the patch is longer: the rest was cut for display (the call gets all of it)"
      }) : null
    );
    if (current > 0 && follow && !scrolling) {
      scrolling = true;
      if (typeof requestAnimationFrame === "function") requestAnimationFrame(toEnd);
      else toEnd();
    }
    note.textContent = ` ${lines.length} line${lines.length === 1 ? "" : "s"}${current > 0 ? ", streaming…" : ""}${truncated ? ", cut for display" : ""}`;
  };
  return { el, update };
}
function resultSection() {
  const el = h("div", { class: "applypatch-result" });
  const stream = (label, cls, text) => h("div", null, h("span", { class: "applypatch-label", text: label }), h("pre", { class: cls, text }));
  const update = (s) => {
    const parts = [
      s.error ? h("div", { class: "applypatch-error" }, h("strong", { text: "error: " }), s.error) : null,
      s.stdout ? stream("stdout", "applypatch-stdout", s.stdout) : null,
      s.stderr ? stream("stderr", "applypatch-stderr", s.stderr) : null,
      s.output && s.hasStatus ? h(
        "details",
        { class: "applypatch-output" },
        h("summary", { text: "output sent to the model" }),
        h("pre", { text: s.output })
      ) : null
    ].filter((p) => p !== null);
    fill(el, ...parts);
    el.hidden = parts.length === 0;
  };
  return { el, update };
}
function eventsSection() {
  const { el, note, body } = section("Timeline", "applypatch-events", false);
  const update = ({ events }) => {
    note.textContent = events.length ? ` ${events.length} event${events.length === 1 ? "" : "s"}` : "";
    const base = events.length ? Number(obj(events[0]).time) : 0;
    const start = Math.max(0, events.length - LIMITS.events);
    const row = (ev) => h(
      "tr",
      { "data-type": str(ev.type) },
      h("td", { class: "applypatch-time", text: formatOffset(Number(ev.time), base) }),
      h("td", null, h("code", { text: str(ev.type) })),
      h("td", { text: str(ev.summary) })
    );
    fill(
      body,
      start ? h("div", { class: "applypatch-more", text: moreText(start, "event", "earlier") }) : null,
      h(
        "table",
        { class: "applypatch-events" },
        h("tbody", null, ...events.slice(start).map((e) => row(obj(e))))
      )
    );
  };
  return { el, update };
}

// src/sections/approval.js
function reviewItem(label, testid, text, chunk, selectable) {
  const input = (
    /** @type {HTMLInputElement} */
    h("input", { type: "checkbox", "data-testid": testid, "aria-label": label })
  );
  input.checked = true;
  input.disabled = !selectable;
  const lines = text.split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.changeDiffLines);
  const diff = h(
    "pre",
    { class: "applypatch-review-diff applypatch-diff" },
    ...shown.map((line) => {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") || line.startsWith("***") ? "hunk" : "context";
      return h("div", { class: `applypatch-line applypatch-diff-${kind}`, text: line });
    }),
    hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null
  );
  const fuzzy = chunk.fuzzy ? h(
    "div",
    { class: "applypatch-review-fuzzy", "data-testid": "applypatch-review-fuzzy", "data-pass": str(chunk.pass) },
    h("span", { class: "applypatch-badge", text: str(chunk.note) }),
    ...arr(chunk.pairs).map(
      (pair) => h(
        "div",
        { class: "applypatch-review-pair" },
        h("div", null, h("span", { class: "applypatch-label", text: "patch" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).patch))))),
        h("div", null, h("span", { class: "applypatch-label", text: "file" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).file)))))
      )
    )
  ) : null;
  const el = h(
    "div",
    { class: "applypatch-review-item" },
    h("label", { class: "applypatch-review-toggle" }, input, h("span", { text: label })),
    fuzzy,
    diff
  );
  return { el, input };
}
function reviewFile(f, i, selectable, listen2, byKey, onChange) {
  const path = str(f.path);
  const chunks = arr(f.chunks).map(obj);
  const whole = Boolean(f.whole) || chunks.length === 0;
  const head = reviewItem(str(f.label), `applypatch-review-file-${i}`, whole ? str(f.text) : "", {}, selectable);
  byKey.set(`${i}:`, head.input);
  const items = whole ? [] : chunks.map((c, k) => {
    const item = reviewItem(str(c.label), `applypatch-review-chunk-${i}-${k}`, str(c.text), c, selectable);
    byKey.set(`${i}:${Number(c.index)}`, item.input);
    return item;
  });
  listen2(head.input, () => {
    for (const t of items) t.input.checked = head.input.checked;
    head.input.indeterminate = false;
    onChange();
  });
  for (const t of items)
    listen2(t.input, () => {
      const on = items.filter((x) => x.input.checked).length;
      head.input.checked = on > 0;
      head.input.indeterminate = on > 0 && on < items.length;
      onChange();
    });
  const el = h(
    "li",
    { class: "applypatch-review-file", "data-path": path },
    head.el,
    items.length ? h("div", { class: "applypatch-review-chunks" }, ...items.map((t) => t.el)) : null
  );
  return { el, toggles: { input: head.input, chunks: items.map((t) => t.input) } };
}
function countTicks(toggles, files) {
  let kept = 0;
  let total = 0;
  const left = [];
  toggles.forEach((t, i) => {
    const name = str(files[i].path);
    const chunks = arr(files[i].chunks).map(obj);
    if (t.chunks.length === 0) {
      total += 1;
      if (t.input.checked) kept += 1;
      else left.push(name);
      return;
    }
    const on = t.chunks.filter((c) => c.checked).length;
    total += t.chunks.length;
    kept += on;
    if (on === 0) left.push(name);
    else t.chunks.forEach((c, k) => c.checked || left.push(str(chunks[k].name)));
  });
  return { kept, total, left };
}
function reviewList(files, selectable, onChange) {
  const byKey = /* @__PURE__ */ new Map();
  const undo = [];
  const listen2 = (el2, fn) => {
    el2.addEventListener("change", fn);
    undo.push(() => el2.removeEventListener("change", fn));
  };
  const made = files.map((f, i) => reviewFile(f, i, selectable, listen2, byKey, onChange));
  const toggles = made.map((m) => m.toggles);
  const el = h(
    "ul",
    { class: "applypatch-review", role: "group", "aria-label": "Files and chunks to apply", "data-testid": "applypatch-review" },
    ...made.map((m) => m.el)
  );
  const selected = (file, chunk) => Boolean(byKey.get(`${file}:${chunk === null ? "" : chunk}`)?.checked);
  const asked = files.map((f) => ({ path: str(f.path), whole: Boolean(f.whole) || arr(f.chunks).length === 0, chunks: arr(f.chunks).map((c) => ({ index: obj(c).index })) }));
  const accept = () => reviewAccept(asked, selected);
  const everything = () => toggles.every((t) => t.input.checked && t.chunks.every((c) => c.checked));
  const ticks = () => countTicks(toggles, files);
  return { el, accept, everything, ticks, dispose: () => undo.forEach((f) => f()) };
}
function patchAsked(patch, open) {
  const { shown, hidden } = truncate(patch.split("\n"), LIMITS.changeDiffLines);
  return h(
    "details",
    { class: "applypatch-approval-patch", "data-testid": "applypatch-approval-patch", open },
    h("summary", { text: "the patch text asked for" }),
    h(
      "pre",
      null,
      shown.join("\n"),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null
    )
  );
}
function approvalSection(send, decisions) {
  const view = new ApprovalView(send, decisions);
  return { el: view.el, update: view.update.bind(view), dispose: view.dispose.bind(view) };
}
function reasonBox() {
  const input = (
    /** @type {HTMLInputElement} */
    h("input", {
      type: "text",
      class: "applypatch-reason-input",
      "data-testid": "applypatch-reason-input",
      "aria-label": "Why you decline (told to the model)",
      placeholder: "why not? (told to the model)"
    })
  );
  input.value = "";
  return input;
}
function decisionButton(d) {
  return (
    /** @type {HTMLButtonElement} */
    h("button", {
      type: "button",
      class: `applypatch-button applypatch-button-${d.decision}`,
      "data-testid": d.testid,
      "data-decision": d.decision,
      "data-approves": d.approves === false ? "false" : "true",
      text: d.label
    })
  );
}
function requestText(approval, reviewState, dir) {
  const files = arr(approval.files).map(str);
  const { shown: listed, hidden } = truncate(files, LIMITS.rows);
  return [
    h("strong", { text: str(approval.heading) }),
    approval.reason ? h("div", { class: "applypatch-reason", text: str(approval.reason) }) : null,
    h("div", { text: str(approval.writes) }),
    h(
      "ul",
      { class: "applypatch-files" },
      ...listed.map((f) => h("li", null, h("code", { text: relativePath(f, dir) }))),
      hidden ? h("li", { class: "applypatch-more", text: moreText(hidden, "path") }) : null
    ),
    reviewState.patch ? patchAsked(str(reviewState.patch), Boolean(approval.reason) && !approval.retry) : null
  ];
}
var ApprovalView = class {
  /**
   * @param {(decision: string, extra?: {accept?: Record<string, boolean | number[]>, reason?: string}) => void} send
   * @param {Decision[]} decisions
   */
  constructor(send, decisions) {
    this.send = send;
    this.decisions = decisions;
    this.text = h("div", { class: "applypatch-approval-text" });
    this.note = h("div", { class: "applypatch-approval-note", role: "status" });
    this.reviewBox = h("div", { class: "applypatch-review-box" });
    this.ticksNote = h("div", { class: "applypatch-ticks-note", "data-testid": "applypatch-ticks-note", role: "status", "aria-live": "polite", hidden: true });
    this.reasonInput = reasonBox();
    this.buttons = decisions.map(decisionButton);
    const declines = decisions.some((d) => d.approves === false);
    const row = this.buttons.flatMap((b) => b.getAttribute("data-approves") === "false" ? [b, this.reasonInput] : [b]);
    this.el = h(
      "div",
      { class: "applypatch-approval", hidden: true },
      this.text,
      this.reviewBox,
      this.ticksNote,
      h("div", { class: "applypatch-buttons" }, ...row, ...declines ? [] : [this.reasonInput]),
      this.note
    );
    this.review = null;
    this.selectable = false;
    this.shown = "";
    this.sentFor = "";
    this.sent = false;
    this.reviewShown = "";
    this.onToggle = this.onToggle.bind(this);
    this.handlers = this.buttons.map((button, i) => {
      const handler = () => this.click(button, i);
      button.addEventListener("click", handler);
      return handler;
    });
  }
  /** @param {number} i */
  approves(i) {
    return this.decisions[i].approves !== false;
  }
  /** The ticks the approving buttons follow: null when there is no selection to make. */
  ticks() {
    return tickState(this.review && this.selectable ? this.review.ticks() : null);
  }
  /** The approving buttons' words and state for the ticks; the line saying what is left out. */
  onToggle() {
    const state = this.ticks();
    this.buttons.forEach((b, i) => {
      if (!this.approves(i)) return;
      const d = this.decisions[i];
      b.textContent = state.partial && !state.none ? `${d.selectedLabel || d.label}${state.suffix}` : d.label;
      b.disabled = this.sent || state.none;
    });
    this.ticksNote.textContent = state.hint;
    this.ticksNote.hidden = state.hint === "";
  }
  /** @param {HTMLButtonElement} button @param {number} i */
  click(button, i) {
    if (this.sent) return;
    if (!this.approves(i)) {
      const reason = str(this.reasonInput.value).trim();
      this.sendFrom(button, reason ? { reason } : {});
      return;
    }
    const state = this.ticks();
    if (state.none) return;
    this.sendFrom(button, state.partial && this.review ? { accept: this.review.accept() } : {});
  }
  /** @param {HTMLButtonElement} button @param {{accept?: Record<string, boolean | number[]>, reason?: string}} extra */
  sendFrom(button, extra) {
    this.sentFor = this.shown;
    this.sent = true;
    for (const b of this.buttons) b.disabled = true;
    this.reasonInput.disabled = true;
    this.note.textContent = `${button.textContent}: sent; the call resumes when the kernel is free (after the running cell).`;
    this.send(button.getAttribute("data-decision") ?? "", extra);
  }
  /** @param {{approval: Record<string, any>, cwd: string, review?: Record<string, any>}} s */
  update({ approval, cwd, review: reviewState = {} }) {
    this.el.hidden = Object.keys(approval).length === 0;
    this.shown = this.el.hidden ? "" : JSON.stringify([approval.request_id, approval.files, approval.reason, approval.retry, reviewState.patch]);
    const refused = Boolean(reviewState.error);
    this.sent = this.shown !== "" && this.sentFor === this.shown && !refused;
    if (!this.sent) this.sentFor = "";
    if (this.el.hidden) {
      this.review?.dispose();
      this.review = null;
      this.reviewShown = "";
      fill(this.reviewBox);
      this.onToggle();
      return;
    }
    for (const b of this.buttons) b.disabled = this.sent;
    this.reasonInput.disabled = this.sent;
    const dir = str(approval.cwd) || cwd;
    fill(this.text, ...requestText(approval, reviewState, dir));
    this.showReview(reviewState);
    this.onToggle();
    if (!this.sent) this.note.textContent = reviewState.error ? `Not sent: ${str(reviewState.error)}` : "";
  }
  /** The review of the request, made again only when it changed. @param {Record<string, any>} reviewState */
  showReview(reviewState) {
    const reviewFiles = arr(reviewState.files).map(obj);
    this.selectable = reviewState.selectable === true;
    const key = JSON.stringify([this.shown, reviewFiles, this.selectable]);
    if (key === this.reviewShown) return;
    this.reviewShown = key;
    this.review?.dispose();
    this.review = reviewFiles.length ? reviewList(reviewFiles, this.selectable, this.onToggle) : null;
    const title = this.selectable ? "Review: untick what must not be applied (approving applies the ticked ones)" : "What this request covers";
    fill(
      this.reviewBox,
      this.review ? h("details", { class: "applypatch-review-details", open: true }, h("summary", { text: title }), this.review.el) : null
    );
  }
  dispose() {
    this.buttons.forEach((b, i) => b.removeEventListener("click", this.handlers[i]));
    this.review?.dispose();
  }
};

// src/sections/undo.js
function placeText(undo) {
  const place = obj(undo.place);
  if (!place.index) return "";
  const turn = place.turn_id ? ` in ${str(place.turn_id)}` : "";
  const of = undo.of ? ` · ${str(undo.kind) || "undo"} of ${str(undo.of)}` : "";
  return `call ${place.index} of ${place.count}${turn}${of}`;
}
var CONFLICT_VERSIONS = Object.freeze([
  ["before", "before the call"],
  ["left", "as the call left it"],
  ["now", "now"]
]);
function versionText(state) {
  if (state === null || state === void 0) return "(not readable as a text file)";
  if (!state.exists) return "(absent)";
  const lines = str(state.content).split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.rows);
  const more = hidden + (Number(state.more_lines) || 0);
  const body = shown.join("\n");
  const text = more ? `${body}${body.endsWith("\n") ? "" : "\n"}${moreText(more)}` : body;
  return text || "(empty)";
}
var safeText = (text) => tokenSpans(visibleText(str(text)));
var safeLines = (text) => str(text).split("\n").flatMap((line, i) => [...i ? ["\n"] : [], ...safeText(line)]);
function conflictBlock(c) {
  return h(
    "details",
    { class: "applypatch-conflict", open: true, "data-testid": "applypatch-conflict" },
    h("summary", null, h("code", null, ...safeText(c.path)), ": ", ...safeText(c.reason)),
    h(
      "div",
      { class: "applypatch-versions", role: "group", "aria-label": `three versions of ${str(c.path)}` },
      ...CONFLICT_VERSIONS.map(
        ([key, label]) => h(
          "div",
          { class: "applypatch-version", "data-version": key },
          // Python's labels when it sends them (a forced undo: what it wrote, what it overwrote)
          h("span", { class: "applypatch-label", text: str(obj(c.labels)[key]) || label }),
          h("pre", null, ...safeLines(key === "now" && !c.now && c.found ? `(${str(c.found)})` : versionText(key === "now" ? c.now : obj(c[key]))))
        )
      )
    )
  );
}
var UNDO_NOTEBOOK_VIEWS = Object.freeze([
  { key: "undo", label: "what Undo would restore (the call's change, reversed)" },
  { key: "redo", label: "what Redo would put back (the call's change again)" },
  { key: "edited", label: "changed since (the conflict)" }
]);
function undoSection(send, decisions) {
  const placeLine = h("div", { class: "applypatch-place", "data-testid": "applypatch-place" });
  const undo = undoButton("undo", "Undo", "Undo this call: put its files back as they were before it");
  const redo = undoButton("redo", "Redo", "Redo this call: put back what the undo reverted");
  const answers = decisions.map((d) => undoButton(`undo-${d.decision}`, d.label, d.label));
  const buttons = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "undo" }, undo, redo);
  const note = h("div", { class: "applypatch-undo-note", role: "status", "aria-live": "polite" });
  const last = h("div", { class: "applypatch-undo-last" });
  const approval = h("div", { class: "applypatch-buttons", hidden: true }, ...answers);
  const conflicts = h("div", { class: "applypatch-conflicts" });
  const choices = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "ways on" });
  const cells = notebooksSection(
    UNDO_NOTEBOOK_VIEWS,
    "Notebooks as cells, as Undo and Redo would restore them",
    "applypatch-undo-notebooks",
    false
  );
  const el = h(
    "div",
    { class: "applypatch-undo", "data-testid": "applypatch-undo-panel", hidden: true },
    placeLine,
    buttons,
    note,
    last,
    approval,
    conflicts,
    choices,
    cells.el
  );
  let disposed = false;
  const all = [undo, redo, ...answers];
  const sendFrom = (off, b, message) => {
    for (const other of off) other.disabled = true;
    note.textContent = `${b.textContent}: sent; it runs when the kernel is free (after the running cell).`;
    send(message);
  };
  const messages = [
    [undo, { type: "undo", kind: "undo" }],
    [redo, { type: "undo", kind: "redo" }],
    ...decisions.map((d, i) => (
      /** @type {[HTMLButtonElement, Record<string, any>]} */
      [answers[i], { type: "undo-approval", decision: d.decision }]
    ))
  ];
  const handlers = messages.map(([b, message]) => {
    const handler = () => sendFrom(all, b, message);
    b.addEventListener("click", handler);
    return handler;
  });
  const offer = (choice) => {
    const b = undoButton("undo-choice", str(choice.label), str(choice.label));
    b.addEventListener("click", () => {
      if (disposed) return;
      sendFrom([...all, .../** @type {HTMLButtonElement[]} */
      [...choices.childNodes]], b, obj(choice.message));
    });
    return b;
  };
  const update = ({ undo: state, cwd = "", vocabulary = {} }) => {
    el.hidden = Object.keys(state).length === 0;
    cells.update({ notebooks: obj(state.notebooks), cwd });
    placeLine.textContent = placeText(state);
    undo.hidden = !state.can_undo;
    redo.hidden = !state.can_redo;
    buttons.hidden = undo.hidden && redo.hidden;
    for (const b of all) b.disabled = false;
    note.textContent = "";
    const previous = obj(state.last);
    approval.hidden = Object.keys(obj(previous.approval)).length === 0;
    nameAnswers(answers, decisions, str(previous.kind) === "redo" ? "redo" : "undo");
    fill(last, lastUndo(previous, vocabulary));
    fill(conflicts, ...[...arr(previous.conflicts), ...arr(state.conflicts)].map(obj).map(conflictBlock));
    const offered = arr(previous.choices).map(obj).map(offer);
    fill(choices, ...offered);
    choices.hidden = offered.length === 0;
  };
  const dispose = () => {
    disposed = true;
    messages.forEach(([b], i) => b.removeEventListener("click", handlers[i]));
    cells.dispose();
  };
  return { el, update, dispose };
}
function nameAnswers(answers, decisions, kind) {
  decisions.forEach((d, i) => {
    answers[i].textContent = `${d.label} (${kind})`;
    answers[i].setAttribute("aria-label", `${d.label}: the answer to the ${kind}'s approval request`);
  });
}
function undoButton(kind, label, aria) {
  return (
    /** @type {HTMLButtonElement} */
    h("button", {
      type: "button",
      class: `applypatch-button applypatch-button-${kind}`,
      "data-testid": `applypatch-${kind}`,
      "aria-label": aria,
      text: label
    })
  );
}
function lastUndo(previous, vocabulary) {
  if (!previous.status) return null;
  const pending = Object.keys(obj(previous.approval)).length > 0;
  const label = statusMeaning(vocabulary, previous.status).label;
  return h(
    "div",
    { "data-status": str(previous.status) },
    h("strong", { text: `${str(previous.kind) || "undo"} ${str(previous.call_id)}: ${label}` }),
    pending ? h("div", { text: `${str(obj(previous.approval).writes)} ${arr(obj(previous.approval).files).map(str).join(", ")}` }) : null,
    previous.error ? h("pre", { class: "applypatch-error" }, ...safeLines(previous.error)) : null,
    previous.output ? h("pre", { class: "applypatch-stdout" }, ...safeLines(previous.output)) : null
  );
}

// src/sections/explanation.js
function explanationPairRow(pair) {
  const passName = pair.pass_name ? str(pair.pass_name) : "";
  const exp = arr(pair.expected_segments).length ? pair.expected_segments : [[false, str(pair.expected)]];
  const act = arr(pair.actual_segments).length ? pair.actual_segments : [[false, str(pair.actual)]];
  return h(
    "tr",
    { class: `applypatch-ex-pair ${passName ? "applypatch-ex-match" : "applypatch-ex-nomatch"}` },
    h("td", { class: "applypatch-ex-num", text: pair.line_number ?? "" }),
    h(
      "td",
      { class: "applypatch-ex-pass" },
      h("span", {
        class: `applypatch-badge applypatch-pass-${passName || "none"}`,
        text: passName || "no match"
      })
    ),
    h(
      "td",
      { class: "applypatch-ex-expected" },
      ...pair.expected === null ? [] : tokenSpans(visibleSegments(exp))
    ),
    h(
      "td",
      { class: "applypatch-ex-actual" },
      ...pair.actual === null || pair.actual === void 0 ? [h("em", { class: "applypatch-ex-absent", text: `(${str(pair.absent) || "no line"})` })] : tokenSpans(visibleSegments(act))
    )
  );
}
function explanationContextRow(text, number) {
  return h(
    "tr",
    { class: "applypatch-ex-context" },
    h("td", { class: "applypatch-ex-num", text: number ?? "" }),
    h("td", { class: "applypatch-ex-pass" }),
    h("td", { class: "applypatch-ex-expected" }),
    h("td", { class: "applypatch-ex-actual" }, ...tokenSpans(visibleText(text)))
  );
}
function explanationSection() {
  const { el, note, body } = section("Why the lines did not match", "applypatch-explanation", true);
  const head = ["line", "pass", "expected (patch)", "closest region (file)"];
  const update = ({ explanation: ex, cwd }) => {
    const pairs = arr(ex.pairs);
    el.hidden = pairs.length === 0 && !ex.summary;
    if (el.hidden) {
      fill(body);
      return;
    }
    note.textContent = ex.path ? ` ${relativePath(str(ex.path), cwd)}` : "";
    const start = typeof ex.region_start === "number" ? ex.region_start : null;
    const before = arr(ex.before).map(str);
    const number = (offset) => start === null ? null : start + offset;
    const { shown, hidden } = truncate(pairs, LIMITS.explanationPairs);
    const rows = [
      ...before.map((t, i) => explanationContextRow(t, number(i + 1 - before.length))),
      ...shown.map((p) => explanationPairRow(obj(p))),
      ...arr(ex.after).map((t, i) => explanationContextRow(str(t), number(pairs.length + i + 1)))
    ];
    fill(
      body,
      h("div", { class: "applypatch-ex-summary", text: str(ex.summary) }),
      h(
        "div",
        { class: "applypatch-ex-scroll" },
        h(
          "table",
          { class: "applypatch-ex" },
          h("thead", null, h("tr", null, ...head.map((t) => h("th", { text: t })))),
          h("tbody", null, ...rows)
        )
      ),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
      h("div", {
        class: "applypatch-legend",
        text: "· space   → tab   ␍ CR   ⍽ non-ASCII space   highlighted: differs"
      })
    );
  };
  return { el, update };
}

// src/sections/diagnosis.js
function diagnosisEntry(entry) {
  let suggestion = null;
  if (entry.suggestion) {
    const note = h("span", { class: "applypatch-dx-copied" });
    const copy = h("button", { class: "applypatch-button", type: "button", text: "Copy", "data-testid": "applypatch-dx-copy" });
    copy.addEventListener("click", () => copyText(entry.suggestion, note, "suggestion"));
    suggestion = h(
      "div",
      { class: "applypatch-dx-suggestion", "data-testid": "applypatch-dx-suggestion" },
      h("div", { class: "applypatch-dx-suggestion-head" }, h("span", { text: entry.note ? `${entry.note}: ` : "" }), copy, note),
      h("pre", { class: "applypatch-dx-text", text: entry.suggestion })
    );
  }
  return h(
    "div",
    {
      class: `applypatch-dx applypatch-dx-tone-${entry.tone}`,
      "data-testid": `applypatch-dx-${entry.role}`,
      "data-kind": entry.kind
    },
    h(
      "div",
      { class: "applypatch-dx-head" },
      h("span", { class: `applypatch-badge applypatch-tone-${entry.tone}`, text: entry.label }),
      h("code", { class: "applypatch-dx-kind", title: entry.meaning || null, text: entry.kind }),
      entry.meaning ? h("span", { class: "applypatch-dx-meaning", text: entry.meaning }) : null
    ),
    entry.where ? h("div", { class: "applypatch-dx-where", text: entry.where }) : null,
    h("div", { class: "applypatch-dx-message", text: entry.message }),
    suggestion
  );
}
function diagnosisNote(entries, roles) {
  return roles.map((r) => {
    const count = entries.filter((e) => e.role === r.role).length;
    if (!count) return "";
    return r.many ? ` ${count} ${r.label}${count === 1 ? "" : "s"}` : ` ${r.note}`;
  }).filter(Boolean).join(";");
}
function diagnosisSection() {
  const { el, note, body } = section("Diagnosis", "applypatch-diagnosis", true);
  const update = ({ entries, roles }) => {
    el.hidden = entries.length === 0;
    note.textContent = diagnosisNote(entries, roles);
    fill(body, ...entries.map(diagnosisEntry));
  };
  return { el, update };
}

// src/sections/changes.js
function plannedSection(open) {
  const badge = h("span", { class: "applypatch-badge applypatch-badge-preview", text: "preview" });
  const { el, note, body } = section("Planned changes", "applypatch-planned", open, badge);
  el.className = "applypatch-section applypatch-preview";
  const view = diffViewState({});
  const update = ({ planned, cwd, words }) => {
    const entries = Object.entries(planned);
    el.hidden = entries.length === 0;
    badge.setAttribute("title", words.title);
    note.textContent = entries.length ? ` ${entries.length} file${entries.length === 1 ? "" : "s"}: ${words.note}` : "";
    const { shown, hidden } = truncate(entries, LIMITS.rows);
    const files = shown.map(([path, change]) => changeFile(path, obj(change), cwd, null, {}, true));
    fill(
      body,
      h("div", { class: "applypatch-planned-note", text: words.text }),
      view.toolbar,
      ...renderFiles(view, files),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null
    );
  };
  return { el, update, dispose: view.dispose };
}
function changesSection() {
  const { el, note, body } = section("Verified changes and committed delta", "applypatch-delta", true);
  const view = diffViewState({});
  const update = ({ proposed, delta, meaning, cwd, sources }) => {
    const rows = compareChanges(proposed, delta, meaning);
    const applied = arr(delta.changes);
    el.hidden = rows.length === 0 && applied.length === 0;
    const missing = rows.filter((r) => r.state === "missing" || r.state === "differs").length;
    note.textContent = ` ${Object.keys(proposed).length} verified, ${applied.length} committed` + (missing ? `, ${missing} not as verified` : "") + (delta.exact === false ? ", inexact" : "");
    const { shown, hidden } = truncate(rows, LIMITS.rows);
    const exact = delta.exact === void 0 || !meaning.terminal || meaning.dry_run || !meaning.wrote && applied.length === 0 ? null : delta.exact ? h("div", { class: "applypatch-exact", text: "exact: the committed changes are complete" }) : h("div", {
      class: "applypatch-inexact",
      text: "inexact: something happened that the changes cannot describe; the list is a lower bound"
    });
    const files = shown.map((r) => changeFile(r.path, r.change ?? obj(r.applied), cwd, r, obj(sources), false));
    fill(
      body,
      exact,
      files.some((f) => f.count) ? view.toolbar : null,
      ...renderFiles(view, files),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null
    );
  };
  return { el, update, dispose: view.dispose };
}
function turnFile(f, sources) {
  const source = obj(obj(sources)[f.key]);
  let rows = null;
  return {
    id: `turn:${f.path}`,
    path: f.path,
    head: [
      h("code", { class: "applypatch-path", text: f.path }),
      source.language ? h("span", { class: "applypatch-lang", text: str(source.language) }) : null
    ],
    sig: [f.path, f.text, f.cut, JSON.stringify(source)],
    cut: f.cut,
    get rows() {
      return rows ??= diffRows(classifyDiffLines(f.text));
    },
    count: f.lines,
    limit: LIMITS.fileDiffLines,
    // past it, the rest of the file is one fold ("show N lines")
    sources: sourcesOf(source),
    preview: false,
    open: true,
    // while the budget of shown lines lasts (see renderFiles)
    added: f.added,
    removed: f.removed,
    attrs: { "data-path": f.path }
  };
}
function turnDiffTools() {
  const status = h("span", { class: "applypatch-tool-note", role: "status" });
  let text = "";
  let url = "";
  const copy = h("button", {
    type: "button",
    class: "applypatch-tool",
    "data-testid": "applypatch-copy-turn-diff",
    "aria-label": "copy the TurnDiff (a patch git apply accepts) to the clipboard",
    text: "Copy patch"
  });
  copy.addEventListener("click", () => copyText(text, status, "TurnDiff"));
  const download = h("a", {
    class: "applypatch-tool applypatch-download",
    "data-testid": "applypatch-download-turn-diff",
    download: "turn.diff",
    role: "button",
    "aria-label": "download the TurnDiff as turn.diff",
    text: "Download turn.diff"
  });
  const revoke = () => {
    if (url) globalThis.URL?.revokeObjectURL?.(url);
    url = "";
  };
  const set = (diff, downloadable) => {
    text = diff;
    if (!downloadable) return;
    revoke();
    try {
      if (diff && typeof Blob !== "undefined" && typeof globalThis.URL?.createObjectURL === "function")
        url = URL.createObjectURL(new Blob([diff], { type: "text/x-diff" }));
    } catch {
      url = "";
    }
    download.hidden = !url;
    if (url) download.setAttribute("href", url);
  };
  return { tools: [copy, download, status], set, revoke };
}
function turnDiffSection(open = true) {
  const { el, note, body } = section("TurnDiff of the turn", "applypatch-turn-diff", open);
  const tools = turnDiffTools();
  const view = diffViewState({ headers: true, extra: tools.tools });
  view.bindHeaders(body);
  let waiting = null;
  const isOpen = () => typeof el.open === "boolean" ? el.open : el.getAttribute("open") !== null;
  el.addEventListener("toggle", () => {
    if (isOpen() && waiting) draw(waiting.s, waiting.files);
  });
  const update = (s) => {
    const files = splitTurnDiff(s.diff, s.blocks);
    const reason = files.length ? "" : str(s.note);
    el.hidden = files.length === 0 && !reason;
    el.classList?.toggle?.("applypatch-turn-diff-empty", Boolean(reason));
    note.textContent = files.length ? ` ${files.length} file${files.length === 1 ? "" : "s"} in this turn (every call so far)` : reason ? ` ${reason}` : "";
    waiting = { s, files };
    if (isOpen() || !files.length) draw(s, files);
  };
  const draw = ({ diff, sources }, files) => {
    waiting = null;
    tools.set(diff, files.length > 0);
    if (!files.length) {
      fill(body);
      return;
    }
    const { shown, hidden } = truncate(files, LIMITS.rows);
    fill(
      body,
      view.toolbar,
      ...renderFiles(view, shown.map((f) => turnFile(f, sources))),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null
    );
  };
  const dispose = () => {
    view.dispose();
    tools.revoke();
  };
  return { el, update, dispose };
}

// src/view.js
var SECTION_STATE = {
  header(get) {
    const meaning = statusMeaning(get("vocabulary"), get("status"));
    const stage = str(get("stage"));
    const summary = summaryText(
      {
        stage: stageLabel(stageList(get("vocabulary")), stage),
        planned: obj(get("planned")),
        proposed: obj(get("proposed")),
        delta: obj(get("delta")),
        approval: obj(get("approval")),
        error: str(get("error"))
      },
      meaning
    );
    const common = { title: str(get("title")), dryRun: Boolean(get("dry_run")), cwd: str(get("cwd")) };
    const shown = undoneMeaning(get("vocabulary"), obj(get("undo")).undone, meaning);
    return { ...common, status: str(get("status")), stage, meaning: shown, summary };
  },
  stages: (get) => ({
    stages: stageList(get("vocabulary")),
    stage: str(get("stage")),
    meaning: statusMeaning(get("vocabulary"), get("status")),
    eventTypes: arr(get("events")).map((e) => str(obj(e).type))
  }),
  safety: (get) => ({
    safety: obj(get("safety")),
    meanings: obj(obj(get("vocabulary")).safety),
    review: obj(obj(get("vocabulary")).safety_review)
  }),
  approval: (get) => ({ approval: obj(get("approval")), cwd: str(get("cwd")), review: obj(get("review")) }),
  result: (get) => ({
    error: str(get("error")),
    stdout: str(get("stdout")),
    stderr: str(get("stderr")),
    output: str(get("output")),
    hasStatus: str(get("status")) !== ""
  }),
  diagnosis: (get) => ({
    // the traits by name; which role each holds is Python's (the vocabulary's atlas roles)
    entries: diagnosisEntries({ diagnosis: get("diagnosis"), warnings: get("warnings") }, get("vocabulary")),
    roles: atlasWords(get("vocabulary")).roles
  }),
  explanation: (get) => ({ explanation: obj(get("explanation")), cwd: str(get("cwd")) }),
  patch: (get) => ({
    text: str(get("patch_text")),
    current: Number(get("current_line")) || 0,
    truncated: Boolean(get("patch_truncated"))
  }),
  planned: (get) => ({
    planned: obj(get("planned")),
    cwd: str(get("cwd")),
    words: previewWords(get("vocabulary"), statusMeaning(get("vocabulary"), get("status")).terminal)
  }),
  changes: (get) => ({
    proposed: obj(get("proposed")),
    delta: obj(get("delta")),
    meaning: statusMeaning(get("vocabulary"), get("status")),
    cwd: str(get("cwd")),
    sources: obj(get("sources"))
  }),
  turnDiff: (get) => ({
    diff: str(get("turn_diff")),
    blocks: arr(get("turn_diff_files")),
    sources: obj(get("turn_sources")),
    note: str(get("turn_diff_note"))
  }),
  events: (get) => ({ events: arr(get("events")) }),
  notebooks: (get) => ({ notebooks: obj(get("notebooks")), cwd: str(get("cwd")) }),
  undo: (get) => ({ undo: obj(get("undo")), cwd: str(get("cwd")), vocabulary: obj(get("vocabulary")) })
};
function traitsRead(read) {
  const traits = /* @__PURE__ */ new Set();
  read((trait) => {
    traits.add(trait);
    return void 0;
  });
  return [...traits];
}
var DEPENDENTS = (() => {
  const feeds = {};
  for (const [name, read] of Object.entries(SECTION_STATE)) {
    for (const trait of traitsRead(read)) (feeds[trait] ??= []).push(name);
  }
  for (const names of Object.values(feeds)) Object.freeze(names);
  return Object.freeze(feeds);
})();
function folder(foldable, endedAtStart) {
  let folded = endedAtStart;
  let readerToggled = false;
  const onSummaryClick = () => {
    readerToggled = true;
  };
  for (const d of foldable) d.firstElementChild?.addEventListener("click", onSummaryClick);
  return {
    /** @param {boolean} ended */
    update(ended) {
      if (!ended || folded) return;
      folded = true;
      if (!readerToggled) for (const d of foldable) d.open = false;
    },
    dispose() {
      for (const d of foldable) d.firstElementChild?.removeEventListener("click", onSummaryClick);
    }
  };
}
var HISTORY_TRAITS = Object.freeze(["stage", "status", "patch_text"]);
function historyRecorder(get) {
  const history = [];
  return {
    record() {
      const now = Date.now();
      recordHistory(history, "stage", str(get("stage")), now);
      recordHistory(history, "status", str(get("status")), now);
      recordHistory(history, "lines", lineCount(str(get("patch_text"))), now);
    },
    json: () => JSON.stringify(history)
  };
}
function listen(model, onChange) {
  const listeners = Object.entries(DEPENDENTS).map(([trait, names]) => {
    const cb = () => onChange(trait, names);
    model.on(`change:${trait}`, cb);
    return (
      /** @type {[string, () => void]} */
      [`change:${trait}`, cb]
    );
  });
  return () => {
    for (const [event, cb] of listeners) model.off(event, cb);
  };
}
function recordHider(el, recordId) {
  let hidden = null;
  let observer = null;
  const selector = `[data-applypatch-record="${recordId.replace(/["\\]/g, "")}"]`;
  const show = () => {
    if (hidden) hidden.style.removeProperty("display");
    hidden = null;
  };
  const find = () => {
    for (let scope = el.parentElement, depth = 0; scope && depth < 8; scope = scope.parentElement, depth++) {
      const record = scope.querySelector(selector);
      if (record) {
        let branch = (
          /** @type {HTMLElement} */
          record
        );
        while (branch.parentElement && branch.parentElement !== scope) branch = branch.parentElement;
        return { scope, branch };
      }
      if (scope.classList?.contains("jp-Cell-outputArea")) return null;
    }
    return null;
  };
  const apply = () => {
    if (hidden && hidden.isConnected && hidden.style.display === "none") return;
    const found = find();
    if (!found) return;
    if (hidden !== found.branch) show();
    hidden = found.branch;
    hidden.style.display = "none";
  };
  let disposed = false;
  const start = () => {
    apply();
    const area = (
      /** @type {HTMLElement | null} */
      el.closest(".jp-Cell-outputArea") ?? el.closest(".jp-OutputArea")
    );
    const watched = area ?? el.parentElement?.parentElement?.parentElement ?? null;
    if (watched && typeof MutationObserver !== "undefined") {
      observer = new MutationObserver(apply);
      observer.observe(watched, { childList: true, subtree: true });
    }
  };
  if (recordId && "parentElement" in el) {
    const whenAttached = () => {
      if (disposed) return;
      if (el.isConnected) start();
      else requestAnimationFrame(whenAttached);
    };
    whenAttached();
  }
  return {
    apply,
    dispose() {
      disposed = true;
      observer?.disconnect();
      show();
    }
  };
}
function makeSections(model, get, endedAtStart) {
  return {
    header: headerSection(),
    stages: stagesSection(),
    safety: safetySection(),
    approval: approvalSection(
      // each answer names the request it answers: the kernel refuses one for another (a stale tab)
      (decision, extra = {}) => model.send({ type: "approval", decision, request: obj(get("approval")).request_id, ...extra }),
      decisionList(get("vocabulary"))
    ),
    result: resultSection(),
    undo: undoSection((message) => model.send(message.type === "undo-approval" ? { ...message, request: obj(obj(obj(get("undo")).last).approval).request_id } : message), decisionList(get("vocabulary"))),
    diagnosis: diagnosisSection(),
    explanation: explanationSection(),
    patch: patchSection(!endedAtStart),
    planned: plannedSection(!endedAtStart),
    changes: changesSection(),
    notebooks: notebooksSection(),
    turnDiff: turnDiffSection(false),
    events: eventsSection()
  };
}
function batcher(update, after) {
  const dirty = /* @__PURE__ */ new Set();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const names = [...dirty];
    dirty.clear();
    for (const name of names) {
      try {
        update(name);
      } catch (err) {
        console.warn(`applypatch widget: cannot render ${name}:`, err);
      }
    }
    after();
  };
  const mark = (names) => {
    for (const name of names) dirty.add(name);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  };
  const now = (names) => {
    for (const name of names) dirty.add(name);
    flush();
  };
  return { mark, now };
}
function render({ model, el }) {
  const get = (name) => {
    try {
      return model.get(name);
    } catch {
      return void 0;
    }
  };
  const history = historyRecorder(get);
  const endedAtStart = SECTION_STATE.header(get).meaning.terminal;
  const view = makeSections(model, get, endedAtStart);
  const { header, ...rest } = view;
  const root = h("div", { class: "applypatch-widget", "data-testid": "applypatch-widget" });
  root.append(header.el, header.cwd, ...Object.values(rest).map((s) => s.el));
  el.append(root);
  const fold = folder([view.patch.el, view.planned.el], endedAtStart);
  let record = recordHider(el, str(get("record_id")));
  const onRecord = () => {
    record.dispose();
    record = recordHider(el, str(get("record_id")));
  };
  model.on("change:record_id", onRecord);
  const update = (name) => {
    const state = SECTION_STATE[name](get);
    view[name].update(state);
    if (name !== "header") return;
    root.setAttribute("data-status", state.status);
    root.setAttribute("data-stage", state.stage);
    fold.update(state.meaning.terminal);
  };
  const batch = batcher(update, () => root.setAttribute("data-history", history.json()));
  const unlisten = listen(model, (trait, names) => {
    if (HISTORY_TRAITS.includes(trait)) history.record();
    batch.mark(names);
  });
  history.record();
  batch.now(Object.keys(view));
  return () => {
    unlisten();
    for (const section2 of [view.approval, view.undo, view.planned, view.changes, view.notebooks, view.turnDiff]) section2.dispose();
    fold.dispose();
    model.off("change:record_id", onRecord);
    record.dispose();
  };
}

// src/widget.js
var widget_default = { render };
export {
  widget_default as default
};
