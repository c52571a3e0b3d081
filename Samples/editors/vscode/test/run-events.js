// Loads ../extension.js with the stand-in `vscode` module and fires the events an
// editing session produces: open, change (typing), visible ranges, save, close.
// Usage: node run-events.js FILE CLSFILE-COMMAND WORDS...
// The file's text becomes WORDS joined by spaces, as if typed, before the save.
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

const [file, command, ...words] = process.argv.slice(2);
if (!file || !command) {
  console.error('usage: node run-events.js FILE CLSFILE-COMMAND WORDS...');
  process.exit(64);
}
stub.configuration['clsfile.command'] = command;
stub.configuration['clsfile.editInterval'] = 0;
stub.configuration['clsfile.viewInterval'] = 0;

const extension = require('../extension.js');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const absolute = path.resolve(file);
  let text = fs.readFileSync(absolute, 'utf8');
  const document = {
    uri: stub.Uri.file(absolute),
    isUntitled: false,
    get lineCount() { return Math.max(1, text.split('\n').length); },
    getText() { return text; },
  };
  const editor = { document, visibleRanges: [new stub.Range(0, 0, 0, 0)] };
  const untitled = { uri: { scheme: 'untitled', fsPath: 'Untitled-1' }, isUntitled: true, lineCount: 1 };
  extension.activate({ subscriptions: [] });

  stub.workspace.onDidOpenTextDocument.fire(untitled); // must be ignored
  stub.workspace.onDidOpenTextDocument.fire(document);
  await sleep(600);
  for (const word of words) {
    const insertion = (text.length && !text.endsWith('\n') ? ' ' : '') + word;
    text += insertion;
    stub.workspace.onDidChangeTextDocument.fire({ document, contentChanges: [{ text: insertion }] });
    await sleep(50);
  }
  stub.workspace.onDidChangeTextDocument.fire({ document: untitled, contentChanges: [{ text: 'x' }] });
  editor.visibleRanges = [new stub.Range(0, 0, document.lineCount - 1, 0)];
  stub.window.onDidChangeTextEditorVisibleRanges.fire({ textEditor: editor, visibleRanges: editor.visibleRanges });
  await sleep(400);
  fs.writeFileSync(absolute, text + '\n');
  stub.workspace.onDidSaveTextDocument.fire(document);
  await sleep(400);
  stub.workspace.onDidCloseTextDocument.fire(document);
  await extension.deactivate();
  if (stub.messages.length) console.error(stub.messages.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
