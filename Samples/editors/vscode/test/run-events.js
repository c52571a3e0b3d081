// Loads ../extension.js with the stand-in `vscode` module and fires the events an
// editing session produces: open, visible ranges, changes (typing), save, close.
//
// Usage: node run-events.js FILE CLSFILE-COMMAND [OPTIONS] [--] WORDS...
//
// The words are typed one by one, 0.3 s apart, each after a space; then, after the
// pauses below, FILE is written (WORDS joined by spaces) and saved, and 0.4 s later
// closed, and the extension is deactivated. FILE need not exist (its folder must):
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
  + '  [--edit-interval SECONDS] [--view-interval SECONDS] [--target-words N] [--reading] [--] WORDS...';

function fail(message) {
  console.error(`${message}\n${usage}`);
  process.exit(64);
}

const [file, command, ...rest] = process.argv.slice(2);
if (!file || !command) fail('run-events.js: FILE and CLSFILE-COMMAND are needed');
const options = { pauseAfterTyping: 0.4, idle: 0 };
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
    const insertion = (text.length && !text.endsWith('\n') ? ' ' : '') + word;
    text += insertion;
    stub.workspace.onDidChangeTextDocument.fire({ document, contentChanges: [{ text: insertion }] });
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
  await sleep(0.4);
  stub.workspace.onDidCloseTextDocument.fire(document);
  await extension.deactivate();
  if (stub.messages.length) console.error(stub.messages.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
