// clsfile for VS Code: records editing sessions of real files with `clsfile hook`
// (plugin protocol version 3).
//
// Events: open (onDidOpenTextDocument, and documents open at activation), edit
// (onDidChangeTextDocument, at most every min(clsfile.editInterval, idle / 2) seconds
// per file, plus one trailing edit when typing pauses), save (onDidSaveTextDocument),
// view (onDidChangeTextEditorVisibleRanges, at most every clsfile.viewInterval seconds
// per file), close (onDidCloseTextDocument, and every open file at deactivation).
//
// Every event after the open carries --input-at, the time of the latest input in the
// file (a text change, a cursor movement, a scroll, a manual save), so clsfile counts
// the work when it happened, not when the call ran. Edits, saves and the close carry the
// characters typed, pasted and moved in the file since the figures last sent for its open
// (--typed, --pasted, --moved, --largest-paste; see countInput and figures), so an editor that
// is killed loses only those since its last event. Only views are sent for the file of
// `clsfile open` ($CLSFILE_SESSION_FILE),
// which times that session itself; its typed and pasted totals are written as JSON to
// $CLSFILE_SESSION_INPUT instead.
//
// Calls run as child processes (child_process.spawn), one at a time and in order,
// so the editor never waits. No npm dependencies.
'use strict';

const vscode = require('vscode');
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

let queue = [];             // { event, file, inputAt, extra, counts, sent } waiting for a process
let running = null;         // the running child process
let idleWaiters = [];       // resolvers called when the queue is empty
const sessions = new Map(); // absolute path -> state of its session (see open)
const quietFiles = new Map(); // absolute path -> whether it is $CLSFILE_SESSION_FILE
const errors = [];          // what clsfile wrote on standard error
// The input in $CLSFILE_SESSION_FILE over the whole run, through closes and reopens.
// unsent: the largest paste not sent yet (see figures).
const sessionCounts = { typed: 0, pasted: 0, moved: 0, largestPaste: 0, unsent: 0 };
let sessionOpened = false;  // whether $CLSFILE_SESSION_FILE was opened: its input is ours to tell
let inputTimer = null;      // the pending write of $CLSFILE_SESSION_INPUT
let warned = false;
let disabled = false;

function setting(name, fallback) {
  const value = vscode.workspace.getConfiguration('clsfile').get(name);
  return value === undefined || value === null ? fallback : value;
}

function remember(text) {
  for (const line of String(text).split('\n')) {
    if (line.trim() === '') continue;
    errors.push(`${new Date().toISOString()} ${line}`);
  }
  while (errors.length > 50) errors.shift();
}

function enabled() {
  return !disabled && setting('enabled', true) !== false;
}

// The idle timeout clsfile uses: edits must come often enough that typing never looks idle.
function idleTimeout() {
  const value = Number(process.env.CLSFILE_IDLE_TIMEOUT);
  return Number.isFinite(value) && value > 0 ? value : 300;
}

function editInterval() {
  const value = Number(setting('editInterval', 120));
  return Math.min(Number.isFinite(value) && value >= 0 ? value : 120, idleTimeout() / 2);
}

function trailingPause() {
  return Math.min(3, idleTimeout() / 4);
}

function seconds(ms) {
  return (ms / 1000).toFixed(3);
}

// The absolute path a document stands for, without looking at the disk: a file, or a
// new file opened from the command line (an untitled document with its path).
function keyOf(document) {
  if (!document || !document.uri) return null;
  const { scheme, fsPath } = document.uri;
  if (scheme === 'file' && !document.isUntitled) return path.resolve(fsPath);
  if (scheme === 'untitled' && path.isAbsolute(fsPath || '')) return path.resolve(fsPath);
  return null;
}

// Symbolic links resolved; for a file that does not exist yet, those of its folder.
function canonical(file) {
  try {
    return fs.realpathSync(file);
  } catch (_) {
    try {
      return path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
    } catch (_) {
      return file;
    }
  }
}

// `clsfile open FILE` records FILE itself: the editor it runs must not record it too.
function quiet(file) {
  const target = process.env.CLSFILE_SESSION_FILE;
  if (!target) return false;
  if (!quietFiles.has(file)) quietFiles.set(file, canonical(file) === canonical(target));
  return quietFiles.get(file);
}

// A regular file, or a new one whose folder exists.
function realFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch (error) {
    if (error.code !== 'ENOENT') return false;
    try {
      return fs.statSync(path.dirname(file)).isDirectory();
    } catch (_) {
      return false;
    }
  }
}

// The absolute path of a document to record, else null.
function pathOf(document) {
  const file = keyOf(document);
  return file && realFile(file) ? file : null;
}

// --target-words and --reading for open, save and close; resource-scoped settings let a
// folder (or a language) have its own.
function progressOptions(state) {
  const configuration = vscode.workspace.getConfiguration('clsfile', state.uri);
  const target = Number(configuration.get('targetWords'));
  const options = [];
  if (Number.isInteger(target) && target > 0) options.push('--target-words', String(target));
  if (configuration.get('reading') === true) options.push('--reading');
  return options;
}

function argumentsFor({ event, file, inputAt, extra }) {
  const args = ['hook', event, file, '--editor', 'vscode', ...extra];
  if (inputAt !== undefined) args.push('--input-at', seconds(inputAt));
  const store = setting('store', '');
  if (store) args.push('--store', path.resolve(store));
  return args;
}

// Queues an event with the latest input seen in the file (none on open). A waiting
// edit or view of the same file is replaced, keeping the newest input time, unless an
// open, save or close of the file comes between them.
function send(event, file, state, extra = []) {
  // `clsfile open` times its file itself: only what the editor shows (for reading
  // progress) is the extension's to tell.
  if (!enabled() || (event !== 'view' && quiet(file))) return;
  let inputAt = event === 'open' ? undefined : state.inputAt;
  if (event === 'edit' || event === 'view') {
    for (let i = queue.length - 1; i >= 0; i--) {
      const waiting = queue[i];
      if (waiting.file !== file) continue;
      if (waiting.event !== 'edit' && waiting.event !== 'view') break;
      if (waiting.event !== event) continue;
      if (waiting.inputAt !== undefined && !(inputAt >= waiting.inputAt)) inputAt = waiting.inputAt;
      queue.splice(i, 1);
    }
  }
  state.lastSent = Date.now();
  const counted = event === 'view' ? {} : { counts: state.counts, sent: state.sent };
  queue.push({ event, file, inputAt, extra, ...counted });
  next();
}

// The figures an event carries, taken when it starts: the characters typed and pasted
// since the figures last sent for the file's open, and the largest of those pastes. An
// edit or a save with nothing new carries none; a close always does (the rest, zeros
// included). A waiting edit replaced by a newer one loses nothing: the figures are
// counted when one starts, a paste's too once its clipboard read is done.
function figures({ event, counts, sent }) {
  // An open (or a view) carries none: clsfile refuses figures with it.
  if (!counts || !sent || !['edit', 'save', 'close'].includes(event)) return [];
  const typed = Math.max(0, counts.typed - sent.typed);
  const pastedNow = Math.max(0, counts.pasted - sent.pasted);
  const moved = Math.max(0, counts.moved - sent.moved);
  if (typed === 0 && pastedNow === 0 && moved === 0 && event !== 'close') return [];
  const largest = Math.min(counts.unsent, pastedNow);
  sent.typed += typed;
  sent.pasted += pastedNow;
  sent.moved += moved;
  counts.unsent = 0;
  return ['--typed', String(typed), '--pasted', String(pastedNow), '--moved', String(moved), '--largest-paste', String(largest)];
}

function next() {
  if (running) return;
  const entry = queue.shift();
  if (!entry) {
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((resolve) => resolve());
    return;
  }
  const command = setting('command', 'clsfile');
  let child;
  try {
    child = spawn(command, [...argumentsFor(entry), ...figures(entry)], { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
  } catch (error) {
    failed(command, error);
    return;
  }
  running = child;
  child.stderr.on('data', (data) => remember(data));
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    running = null;
    next();
  };
  child.on('error', (error) => {
    failed(command, error);
    finish();
  });
  child.on('close', finish);
}

// Says once that clsfile cannot be run, and stops sending.
function failed(command, error) {
  remember(`could not run ${command}: ${error.message}`);
  if (error.code === 'ENOENT' || error.code === 'EACCES') {
    disabled = true;
    queue = [];
    if (!warned) {
      warned = true;
      vscode.window.showWarningMessage(
        `clsfile: "${command}" is not executable; set clsfile.command. Sessions are not recorded.`);
    }
  }
}

/** Resolves when no call runs or waits (or after `ms`). */
function whenIdle(ms = 5000) {
  if (!running && queue.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    idleWaiters.push(() => { clearTimeout(timer); resolve(); });
  });
}

function open(document) {
  const file = pathOf(document);
  if (!file || sessions.has(file)) return;
  const state = {
    uri: document.uri,
    openedAt: Date.now(), // sent back with the close: the session's length in this editor
    inputAt: undefined,   // ms of the latest input since the open
    lastSent: -Infinity,  // ms of the last event queued
    lastEdit: -Infinity,  // ms of the last edit event, for the throttle
    lastView: -Infinity,
    sentView: null,       // the last view sent
    shownView: null,      // the last visible lines seen
    viewTimer: null,
    trailing: null,       // the trailing edit's debounce timer
    closing: null,
    counts: quiet(file) ? sessionCounts : { typed: 0, pasted: 0, moved: 0, largestPaste: 0, unsent: 0 },
    sent: { typed: 0, pasted: 0, moved: 0 }, // the figures sent since the open (see figures)
    counting: Promise.resolve(), // the clipboard reads still to finish (see countInput)
    text: textOf(document), // the text after the last change: what a change removed, what a paste finds
    own: [],                // what was cut or deleted in the file, newest last (see isOwn)
  };
  sessionOpened = sessionOpened || quiet(file);
  sessions.set(file, state);
  send('open', file, state, progressOptions(state));
}

// Notes input in a file. The trailing edit, a short pause after the last input, makes
// sure clsfile hears of typing that the throttle held back before an idle break.
function input(file, state) {
  const now = Date.now();
  state.inputAt = now;
  clearTimeout(state.trailing);
  state.trailing = setTimeout(() => {
    state.trailing = null;
    if (sessions.get(file) !== state || !(state.inputAt > state.lastSent)) return;
    state.lastEdit = Date.now();
    send('edit', file, state);
  }, trailingPause() * 1000);
  return now;
}

// Typed and pasted characters. VS Code says neither, so a change's text decides:
// - undo and redo (event.reason) are neither;
// - typed: one character (a key, a one-character input-method commit), a line break
//   with the indent after it, or an auto-closed pair;
// - pasted: a longer text that is the clipboard's (paste, paste from the context menu
//   or the Edit menu, of any extension), or one line of it at each of several cursors;
//   the clipboard is read asynchronously, and only for such changes;
// - moved, not pasted: such a paste of the file's own text, cut or deleted in it in this
//   run of the editor, or held by it before the paste (a copy of its own text);
// - any other longer text is neither: completions, snippets, formatting, refactoring,
//   other extensions' edits, and longer input-method commits look the same.
const PAIRS = new Set(['()', '[]', '{}', '""', "''", '``', '<>']);

function characters(text) {
  return [...text].length;
}

function isTyped(change) {
  return characters(change.text) === 1 || /^\r?\n[ \t]*$/.test(change.text)
    || (change.rangeLength === 0 && PAIRS.has(change.text));
}

// The text of a document, when it tells it.
function textOf(document) {
  return typeof document.getText === 'function' ? document.getText().replace(/\r\n/g, '\n') : undefined;
}

// Text without the line breaks at its ends.
function trimmed(text) {
  return text.replace(/^\n+|\n+$/g, '');
}

// True when text pasted into the file is its own: cut or deleted in it, or in the text it held before.
function isOwn(state, before, text) {
  const own = trimmed(text);
  return own !== '' && (state.own.includes(own) || (before !== undefined && before.includes(own)));
}

function pasted(state, before, text) {
  const { counts } = state;
  const chars = characters(text);
  if (isOwn(state, before, text)) {
    counts.moved += chars;
    return;
  }
  counts.pasted += chars;
  counts.largestPaste = Math.max(counts.largestPaste, chars);
  counts.unsent = Math.max(counts.unsent, chars);
}

function countInput(event, state) {
  const before = state.text;
  state.text = textOf(event.document);
  if (event.reason) return;
  const longer = [];
  for (const change of event.contentChanges) {
    if (change.text === '') {
      // A cut or a deletion of more than a character: the file's own text, if pasted again.
      const offset = change.rangeOffset;
      if (before !== undefined && offset !== undefined && change.rangeLength > 1) {
        const removed = trimmed(before.slice(offset, offset + change.rangeLength));
        if (removed !== '') state.own.push(removed);
        if (state.own.length > 20) state.own.shift();
      }
      continue;
    }
    if (isTyped(change)) state.counts.typed += characters(change.text);
    else longer.push(change.text.replace(/\r\n/g, '\n'));
  }
  if (longer.length > 0 && vscode.env && vscode.env.clipboard) {
    state.counting = state.counting
      .then(() => vscode.env.clipboard.readText())
      .then((text) => {
        const clipboard = text.replace(/\r\n/g, '\n');
        if (longer.every((inserted) => inserted === clipboard)) {
          longer.forEach((inserted) => pasted(state, before, inserted));
        } else if (longer.length > 1 && [longer, [...longer].reverse()].some((lines) => lines.join('\n') === clipboard)) {
          pasted(state, before, longer.join(''));
        }
        inputChanged(state);
      }, (error) => remember(`could not read the clipboard: ${error.message}`));
  }
  inputChanged(state);
}

// The totals for $CLSFILE_SESSION_INPUT: written at most every 2 s while input goes on,
// and when the file is closed or the extension is deactivated.
function inputChanged(state) {
  if (state.counts !== sessionCounts || inputTimer || !process.env.CLSFILE_SESSION_INPUT) return;
  inputTimer = setTimeout(() => writeInput(false), 2000);
}

function writeInput(now) {
  clearTimeout(inputTimer);
  inputTimer = null;
  const file = process.env.CLSFILE_SESSION_INPUT;
  if (!file || !sessionOpened || !enabled()) return;
  const text = JSON.stringify(sessionCounts) + '\n';
  const failed = (error) => { if (error) remember(`CLSFILE_SESSION_INPUT: ${error.message}`); };
  if (!now) return fs.writeFile(file, text, failed);
  try {
    fs.writeFileSync(file, text);
  } catch (error) {
    failed(error);
  }
}

function edit(event) {
  if (!event.contentChanges || event.contentChanges.length === 0) return;
  const file = pathOf(event.document);
  if (!file) return;
  if (!sessions.has(file)) open(event.document); // a change after a close starts a new session
  const state = sessions.get(file);
  countInput(event, state);
  const now = input(file, state);
  if (now - state.lastEdit < editInterval() * 1000) return;
  state.lastEdit = now;
  send('edit', file, state);
}

// A cursor moved by the keyboard, the mouse or a command is input; one moved by an
// extension (no kind) is not.
function select(event) {
  if (!event || !event.kind) return;
  const file = pathOf(event.textEditor && event.textEditor.document);
  const state = file && sessions.get(file);
  if (state) input(file, state);
}

// Only a save the person asked for is input; auto-saves are not.
function willSave(event) {
  if (!event || event.reason !== vscode.TextDocumentSaveReason.Manual) return;
  const file = pathOf(event.document);
  const state = file && sessions.get(file);
  if (state) input(file, state);
}

function save(document) {
  const file = pathOf(document);
  if (!file) return;
  if (!sessions.has(file)) open(document);
  const state = sessions.get(file);
  send('save', file, state, progressOptions(state));
}

// Sends the visible lines when they changed, at most every viewInterval seconds;
// a change inside the interval is sent when it ends. `scrolled` says the lines moved
// in an editor that already showed the file: a scroll, so input.
function view(editor, ranges, scrolled) {
  const document = editor && editor.document;
  const file = pathOf(document);
  const state = file && sessions.get(file);
  if (!state || !ranges || ranges.length === 0) return;
  const total = Math.max(1, document.lineCount);
  const first = Math.min(total, Math.max(1, ranges[0].start.line + 1));
  const last = Math.min(total, Math.max(first, ranges[ranges.length - 1].end.line + 1));
  const key = `${first}-${last}/${total}`;
  if (scrolled && state.shownView !== null && state.shownView !== key) input(file, state);
  state.shownView = key;
  if (state.sentView === key) return;
  const wait = setting('viewInterval', 10) * 1000 - (Date.now() - state.lastView);
  if (wait > 0) {
    if (!state.viewTimer) {
      state.viewTimer = setTimeout(() => {
        state.viewTimer = null;
        view(editor, editor.visibleRanges || ranges, false);
      }, wait);
    }
    return;
  }
  state.lastView = Date.now();
  state.sentView = key;
  send('view', file, state, ['--view', `${first}-${last}`, '--total-lines', String(total)]);
}

function end(file) {
  const state = sessions.get(file);
  if (!state) return;
  sessions.delete(file);
  clearTimeout(state.viewTimer);
  clearTimeout(state.trailing);
  clearTimeout(state.closing);
  send('close', file, state, ['--opened-at', seconds(state.openedAt), ...progressOptions(state)]);
  if (quiet(file)) writeInput(true);
}

function close(document) {
  const file = keyOf(document);
  const state = file && sessions.get(file);
  if (!state) return;
  if (document.uri.scheme !== 'untitled') return end(file);
  // Saving a new file replaces its untitled document with a file document, in either
  // order: the session goes on if a document of the same path is open a moment later.
  clearTimeout(state.closing);
  state.closing = setTimeout(() => {
    state.closing = null;
    const reopened = (vscode.workspace.textDocuments || []).some(
      (other) => other !== document && !other.isClosed && keyOf(other) === file);
    if (!reopened && sessions.get(file) === state) end(file);
  }, 1000);
}

function activate(context) {
  const subscriptions = [
    vscode.workspace.onDidOpenTextDocument(open),
    vscode.workspace.onDidChangeTextDocument(edit),
    vscode.workspace.onWillSaveTextDocument(willSave),
    vscode.workspace.onDidSaveTextDocument(save),
    vscode.window.onDidChangeTextEditorSelection(select),
    vscode.window.onDidChangeTextEditorVisibleRanges((event) => view(event.textEditor, event.visibleRanges, true)),
    vscode.workspace.onDidCloseTextDocument(close),
    vscode.commands.registerCommand('clsfile.showErrors', () => {
      vscode.window.showInformationMessage(errors.length ? errors.join('\n') : 'clsfile: no errors');
    }),
  ];
  context.subscriptions.push(...subscriptions);
  for (const document of vscode.workspace.textDocuments) open(document);
  for (const editor of vscode.window.visibleTextEditors || []) view(editor, editor.visibleRanges, false);
}

// VS Code waits for the promise deactivate returns: close every file that is still
// open, then let the running and waiting calls end.
async function deactivate() {
  // A paste's clipboard read takes a moment: its count goes with the close.
  let timer;
  await Promise.race([Promise.all([...sessions.values()].map((state) => state.counting)),
    new Promise((resolve) => { timer = setTimeout(resolve, 1000); })]);
  clearTimeout(timer);
  for (const file of [...sessions.keys()]) end(file);
  writeInput(true);
  await whenIdle(4000);
}

module.exports = { activate, deactivate, whenIdle };
