// clsfile for VS Code: records editing sessions of real files with `clsfile hook`.
//
// Events: open (onDidOpenTextDocument, and documents open at activation), edit
// (onDidChangeTextDocument, at most every clsfile.editInterval seconds per file),
// save (onDidSaveTextDocument), view (onDidChangeTextEditorVisibleRanges, at most
// every clsfile.viewInterval seconds per file), close (onDidCloseTextDocument, and
// every open file at deactivation).
//
// Calls run as child processes (child_process.spawn), one at a time and in order,
// so the editor never waits. No npm dependencies.
'use strict';

const vscode = require('vscode');
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

let queue = [];             // argument lists waiting for a process
let running = null;         // the running child process
let idleWaiters = [];       // resolvers called when the queue is empty
const opened = new Set();   // absolute paths with a session
const lastEdit = new Map(); // path -> ms of the last edit event
const lastView = new Map(); // path -> ms of the last view event
const sentView = new Map(); // path -> the last view sent
const viewTimers = new Map(); // path -> pending timer
const errors = [];          // what clsfile wrote on standard error
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

// The absolute path of a document that is a real file, else null.
function pathOf(document) {
  if (!document || !document.uri || document.uri.scheme !== 'file' || document.isUntitled) return null;
  const file = path.resolve(document.uri.fsPath);
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch (_) {
    return null;
  }
}

function argumentsFor(event, file, extra = []) {
  const args = ['hook', event, file, '--editor', 'vscode', ...extra];
  const store = setting('store', '');
  if (store) args.push('--store', path.resolve(store));
  return args;
}

// Queues an event; a pending edit or view of the same file is replaced.
function send(event, file, extra) {
  if (!enabled()) return;
  if (event === 'edit' || event === 'view') {
    queue = queue.filter((args) => !(args[1] === event && args[2] === file));
  }
  queue.push(argumentsFor(event, file, extra));
  next();
}

function next() {
  if (running) return;
  const args = queue.shift();
  if (!args) {
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((resolve) => resolve());
    return;
  }
  const command = setting('command', 'clsfile');
  let child;
  try {
    child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
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
  if (!file || opened.has(file)) return;
  opened.add(file);
  send('open', file);
}

function edit(event) {
  if (!event.contentChanges || event.contentChanges.length === 0) return;
  const file = pathOf(event.document);
  if (!file) return;
  if (!opened.has(file)) return open(event.document);
  const now = Date.now();
  if (now - (lastEdit.get(file) ?? -Infinity) < setting('editInterval', 120) * 1000) return;
  lastEdit.set(file, now);
  send('edit', file);
}

function save(document) {
  const file = pathOf(document);
  if (!file) return;
  opened.add(file); // a new file exists once saved: its session starts here
  send('save', file);
}

// Sends the visible lines when they changed, at most every viewInterval seconds;
// a change inside the interval is sent when it ends.
function view(editor, ranges) {
  const document = editor && editor.document;
  const file = pathOf(document);
  if (!file || !opened.has(file) || !ranges || ranges.length === 0) return;
  const total = Math.max(1, document.lineCount);
  const first = Math.min(total, Math.max(1, ranges[0].start.line + 1));
  const last = Math.min(total, Math.max(first, ranges[ranges.length - 1].end.line + 1));
  const key = `${first}-${last}/${total}`;
  if (sentView.get(file) === key) return;
  const wait = setting('viewInterval', 10) * 1000 - (Date.now() - (lastView.get(file) ?? -Infinity));
  if (wait > 0) {
    if (!viewTimers.has(file)) {
      viewTimers.set(file, setTimeout(() => {
        viewTimers.delete(file);
        view(editor, editor.visibleRanges || ranges);
      }, wait));
    }
    return;
  }
  lastView.set(file, Date.now());
  sentView.set(file, key);
  send('view', file, ['--view', `${first}-${last}`, '--total-lines', String(total)]);
}

function forget(file) {
  opened.delete(file);
  lastEdit.delete(file);
  lastView.delete(file);
  sentView.delete(file);
  if (viewTimers.has(file)) {
    clearTimeout(viewTimers.get(file));
    viewTimers.delete(file);
  }
}

function close(document) {
  if (!document || !document.uri || document.uri.scheme !== 'file') return;
  const file = path.resolve(document.uri.fsPath);
  if (!opened.has(file)) return;
  forget(file);
  send('close', file);
}

function activate(context) {
  const subscriptions = [
    vscode.workspace.onDidOpenTextDocument(open),
    vscode.workspace.onDidChangeTextDocument(edit),
    vscode.workspace.onDidSaveTextDocument(save),
    vscode.window.onDidChangeTextEditorVisibleRanges((event) => view(event.textEditor, event.visibleRanges)),
    vscode.workspace.onDidCloseTextDocument(close),
    vscode.commands.registerCommand('clsfile.showErrors', () => {
      vscode.window.showInformationMessage(errors.length ? errors.join('\n') : 'clsfile: no errors');
    }),
  ];
  context.subscriptions.push(...subscriptions);
  for (const document of vscode.workspace.textDocuments) open(document);
  for (const editor of vscode.window.visibleTextEditors || []) view(editor, editor.visibleRanges);
}

// VS Code waits for the promise deactivate returns: let the running and waiting
// calls end, then close every file that is still open.
async function deactivate() {
  for (const file of [...opened]) {
    forget(file);
    send('close', file);
  }
  await whenIdle(4000);
}

module.exports = { activate, deactivate, whenIdle };
