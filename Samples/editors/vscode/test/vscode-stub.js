// A minimal stand-in for the `vscode` module, enough to load extension.js in plain
// Node and fire the events it listens to. Not a VS Code emulator.
'use strict';

const path = require('path');

function emitter() {
  const listeners = [];
  const event = (listener) => {
    listeners.push(listener);
    return { dispose() { listeners.splice(listeners.indexOf(listener), 1); } };
  };
  event.fire = (value) => listeners.slice().forEach((listener) => listener(value));
  return event;
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
}

class Range {
  constructor(startLine, startCharacter, endLine, endCharacter) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

const Uri = {
  file(fsPath) { return { scheme: 'file', fsPath: path.resolve(fsPath), path: path.resolve(fsPath) }; },
  parse(text) { const [scheme, rest] = text.split(':'); return { scheme, fsPath: rest, path: rest }; },
};

// The values VS Code's enums have.
const TextDocumentSaveReason = { Manual: 1, AfterDelay: 2, FocusOut: 3 };
const TextEditorSelectionChangeKind = { Keyboard: 1, Mouse: 2, Command: 3 };
const TextDocumentChangeReason = { Undo: 1, Redo: 2 };

const configuration = {};
const messages = [];

const workspace = {
  textDocuments: [],
  onDidOpenTextDocument: emitter(),
  onDidChangeTextDocument: emitter(),
  onWillSaveTextDocument: emitter(),
  onDidSaveTextDocument: emitter(),
  onDidCloseTextDocument: emitter(),
  // One set of values for every scope (folder, language) asked for.
  getConfiguration(section, scope) {
    return { get: (key, fallback) => (`${section}.${key}` in configuration ? configuration[`${section}.${key}`] : fallback) };
  },
};

const window = {
  visibleTextEditors: [],
  onDidChangeTextEditorSelection: emitter(),
  onDidChangeTextEditorVisibleRanges: emitter(),
  showWarningMessage(text) { messages.push(text); return Promise.resolve(); },
  showInformationMessage(text) { messages.push(text); return Promise.resolve(); },
};

// The clipboard, as VS Code's asynchronous env.clipboard has it.
let clipboardText = '';
const env = {
  clipboard: {
    readText() { return new Promise((resolve) => setTimeout(() => resolve(clipboardText), 5)); },
    writeText(text) { clipboardText = String(text); return Promise.resolve(); },
  },
};

const commands = {
  registerCommand(name, callback) { return { dispose() {} }; },
};

module.exports = {
  workspace, window, commands, env, Uri, Position, Range, TextDocumentSaveReason, TextEditorSelectionChangeKind,
  TextDocumentChangeReason, configuration, messages,
};
