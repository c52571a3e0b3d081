// Loads ../extension.js with the stand-in `vscode` module and fires the events an
// editing session produces: open, visible ranges, changes (typing), save, close.
//
// Usage: node run-events.js FILE CLSFILE-COMMAND [OPTIONS] [--] WORDS...
//
// The words are typed one by one, 0.3 s apart, each after a space (a change per
// character), then the texts of
// --paste and --insert are inserted; then, after the pauses below, FILE is written (the
// words and texts) and saved, and 0.4 s later closed, and the extension is deactivated. FILE need not exist (its folder must):
// then it is a new file, created at the save.
//
//   --pause-after-typing SECONDS  wait after the last word, then save by hand (a manual
//                                 save, which is input); default 0.4
//   --idle SECONDS                then wait SECONDS more with no input at all; the save
//                                 is then an auto-save (focus out), which is not input
//   --edit-interval SECONDS       clsfile.editInterval (default the extension's, 120)
//   --view-interval SECONDS       clsfile.viewInterval (default the extension's, 10)
//   --target-words N              clsfile.targetWords
//   --reading                     clsfile.reading on
//   --paste TEXT                  paste TEXT: it goes to the clipboard, then into the
//                                 document in one change (repeatable)
//   --insert TEXT                 insert TEXT in one change that is no paste, as a
//                                 completion does (repeatable)
//   --copy TEXT                   copy TEXT, which the document holds, and paste it at
//                                 the end (repeatable): the writer's own text, copied
//   --move TEXT                   cut TEXT, which the document holds, in one change (a
//                                 deletion), and paste it at the end (repeatable)
//   --undo                        then undo the last of those and redo it (changes with
//                                 the reasons Undo and Redo)
//   --crash                       after the save, wait for the calls to end, then exit as
//                                 a killed editor would: no close, no deactivate
//
// The environment passes through to the extension and clsfile: CLSFILE_IDLE_TIMEOUT,
// CLSFILE_SESSION_FILE, CLSFILE_STORE. Warnings the extension shows go to standard error.
'use strict';

const fs = require('fs');
const path = require('path');
const Module = require('module');

const stub = require('./vscode-stub');
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'vscode') return require.resolve('./vscode-stub');
  return originalResolve.call(this, request, ...rest);
};

const usage = 'usage: node run-events.js FILE CLSFILE-COMMAND [--pause-after-typing SECONDS] [--idle SECONDS]\n'
  + '  [--edit-interval SECONDS] [--view-interval SECONDS] [--target-words N] [--reading]\n'
  + '  [--paste TEXT]... [--insert TEXT]... [--copy TEXT]... [--move TEXT]... [--undo] [--crash] [--] WORDS...';

function fail(message) {
  console.error(`${message}\n${usage}`);
  process.exit(64);
}

const [file, command, ...rest] = process.argv.slice(2);
if (!file || !command) fail('run-events.js: FILE and CLSFILE-COMMAND are needed');
const options = { pauseAfterTyping: 0.4, idle: 0, insertions: [], undo: false, crash: false };
const numberOptions = {
  '--pause-after-typing': (value) => { options.pauseAfterTyping = value; },
  '--idle': (value) => { options.idle = value; },
  '--edit-interval': (value) => { stub.configuration['clsfile.editInterval'] = value; },
  '--view-interval': (value) => { stub.configuration['clsfile.viewInterval'] = value; },
  '--target-words': (value) => { stub.configuration['clsfile.targetWords'] = value; },
};
let words = rest;
while (words.length && words[0].startsWith('--')) {
  const option = words.shift();
  if (option === '--') break;
  if (option === '--reading') {
    stub.configuration['clsfile.reading'] = true;
  } else if (option === '--undo') {
    options.undo = true;
  } else if (option === '--crash') {
    options.crash = true;
  } else if (['--paste', '--insert', '--copy', '--move'].includes(option)) {
    if (!words.length) fail(`run-events.js: ${option} needs a text`);
    options.insertions.push({ text: words.shift(), paste: option !== '--insert', cut: option === '--move' });
  } else if (option in numberOptions) {
    const value = Number(words.shift());
    if (!Number.isFinite(value) || value < 0) fail(`run-events.js: ${option} needs a number`);
    numberOptions[option](value);
  } else {
    fail(`run-events.js: unknown option ${option}`);
  }
}
stub.configuration['clsfile.command'] = command;

const extension = require('../extension.js');
const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function main() {
  const absolute = path.resolve(file); // symbolic links kept, as VS Code keeps them
  let text = '';
  try {
    text = fs.readFileSync(absolute, 'utf8');
  } catch (error) {
    if (error.code !== 'ENOENT') throw error; // a new file: written at the save
  }
  const document = {
    uri: stub.Uri.file(absolute),
    isUntitled: false,
    get lineCount() { return Math.max(1, text.split('\n').length); },
    getText() { return text; },
  };
  const whole = () => [new stub.Range(0, 0, document.lineCount - 1, 0)]; // a short text fits
  const editor = { document, visibleRanges: whole() };
  const untitled = { uri: { scheme: 'untitled', fsPath: 'Untitled-1' }, isUntitled: true, lineCount: 1 };
  extension.activate({ subscriptions: [] });

  stub.workspace.onDidOpenTextDocument.fire(untitled); // must be ignored
  stub.workspace.onDidOpenTextDocument.fire(document);
  stub.window.onDidChangeTextEditorVisibleRanges.fire({ textEditor: editor, visibleRanges: editor.visibleRanges });
  await sleep(0.6);
  for (const [index, word] of words.entries()) {
    if (index > 0) await sleep(0.3);
    // A key at a time, as typing changes a document.
    for (const key of (text.length && !text.endsWith('\n') ? ' ' : '') + word) {
      text += key;
      stub.workspace.onDidChangeTextDocument.fire({ document, contentChanges: [{ text: key, rangeLength: 0 }] });
    }
  }
  for (const { text: inserted, paste, cut } of options.insertions) {
    await sleep(0.3);
    if (cut) {
      const at = text.indexOf(inserted);
      if (at < 0) fail(`run-events.js: --move ${inserted}: the document does not hold it`);
      text = text.slice(0, at) + text.slice(at + inserted.length);
      stub.workspace.onDidChangeTextDocument.fire({
        document, contentChanges: [{ text: '', rangeOffset: at, rangeLength: inserted.length }] });
      await sleep(0.1);
    }
    if (paste) await stub.env.clipboard.writeText(inserted);
    text += inserted;
    stub.workspace.onDidChangeTextDocument.fire({ document, contentChanges: [{ text: inserted, rangeLength: 0 }] });
  }
  if (options.undo && options.insertions.length) {
    const { text: undone } = options.insertions[options.insertions.length - 1];
    text = text.slice(0, text.length - undone.length);
    stub.workspace.onDidChangeTextDocument.fire({
      document, reason: stub.TextDocumentChangeReason.Undo, contentChanges: [{ text: '', rangeLength: undone.length }] });
    await sleep(0.1);
    text += undone;
    stub.workspace.onDidChangeTextDocument.fire({
      document, reason: stub.TextDocumentChangeReason.Redo, contentChanges: [{ text: undone, rangeLength: 0 }] });
  }
  // The editor still shows the whole text: the same lines unless a word added one.
  editor.visibleRanges = whole();
  stub.window.onDidChangeTextEditorVisibleRanges.fire({ textEditor: editor, visibleRanges: editor.visibleRanges });
  stub.workspace.onDidChangeTextDocument.fire({ document: untitled, contentChanges: [{ text: 'x' }] });
  await sleep(options.pauseAfterTyping);
  await sleep(options.idle);
  const reason = options.idle > 0 ? stub.TextDocumentSaveReason.FocusOut : stub.TextDocumentSaveReason.Manual;
  stub.workspace.onWillSaveTextDocument.fire({ document, reason, waitUntil() {} });
  fs.writeFileSync(absolute, text + '\n');
  stub.workspace.onDidSaveTextDocument.fire(document);
  if (options.crash) {
    await extension.whenIdle(4000);
    process.exit(0);
  }
  await sleep(0.4);
  stub.workspace.onDidCloseTextDocument.fire(document);
  await extension.deactivate();
  if (stub.messages.length) console.error(stub.messages.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
