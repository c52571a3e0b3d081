"""The part of the clsfile extension that knows nothing of UNO.

`Channel` owns one long-lived `clsfile hook --stdio` child process: events are queued by the
LibreOffice thread and written by a thread of its own, so typing never waits for clsfile; the
answers and what clsfile writes on standard error are read by two more threads and the errors kept.

`Tracker` keeps one `Session` per file, from its `open` to its `close`, and applies the same
throttles as the Vim plugin (Samples/editors/vim/plugin/clsfile.vim): an `edit` at most every
min(120, idle / 2) seconds per file and one trailing `edit` min(3, idle / 4) seconds after the
input stops; a `view` at most every 10 seconds. It also counts the typed and pasted characters, which
`edit`, `save` and `close` carry, each time those since the figures last sent for the file's open, so
that a LibreOffice that crashes loses only those since its last event (for the file `clsfile open`
runs LibreOffice on, it writes the totals to the file named by CLSFILE_SESSION_INPUT instead).
"""

import collections
import json
import os
import shutil
import subprocess
import threading
import time

EDITOR = "libreoffice"


def _positive_number(text, default):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return default
    return value if value > 0 else default


def _true(text):
    return (text or "").strip().lower() in ("1", "true", "yes", "on")


class Settings:
    """What the environment asks for; read once, when LibreOffice starts."""

    def __init__(self, environ=os.environ):
        self.command = environ.get("CLSFILE_COMMAND") or shutil.which("clsfile") or "clsfile"
        # The idle timeout clsfile itself reads, which bounds the edit interval and the pause.
        self.idle = _positive_number(environ.get("CLSFILE_IDLE_TIMEOUT"), 300.0)
        self.edit_interval = min(_positive_number(environ.get("CLSFILE_EDIT_INTERVAL"), 120.0), self.idle / 2)
        self.pause = min(3.0, self.idle / 4)
        self.view_interval = _positive_number(environ.get("CLSFILE_VIEW_INTERVAL"), 10.0)
        self.reading = _true(environ.get("CLSFILE_READING"))
        words = int(_positive_number(environ.get("CLSFILE_TARGET_WORDS"), 0))
        # clsfile refuses a target with reading: reading wins, as it decides which views count.
        self.target_words = words if words > 0 and not self.reading else None
        self.enabled = environ.get("CLSFILE_ENABLED", "1").strip() not in ("0", "false", "no", "off")
        session_file = environ.get("CLSFILE_SESSION_FILE") or ""
        self.session_file = os.path.realpath(session_file) if session_file else None
        self.session_input = environ.get("CLSFILE_SESSION_INPUT") or None

    def goal(self):
        """The progress keys of open, save and close."""
        if self.reading:
            return {"reading": True}
        if self.target_words:
            return {"targetWords": self.target_words}
        return {}


class Channel:
    """One `clsfile hook --stdio` process, started at the first event and again when it dies."""

    ERRORS_KEPT = 50

    def __init__(self, command, log_path=None):
        self.command = command
        self.log_path = log_path
        self.errors = collections.deque(maxlen=self.ERRORS_KEPT)
        self._lock = threading.Condition()
        self._queue = []            # event dicts waiting for the writer thread
        self._timers = {}           # key -> [deadline, function], run on the writer thread
        self._stopping = False
        self._process = None
        self._thread = None
        self._warned_missing = False

    # -- called on LibreOffice's thread ------------------------------------------------------

    def send(self, event):
        """Queues an event; a waiting edit or view of the same file is replaced by this newer one,
        which takes over the figures the older one carried."""
        with self._lock:
            if self._stopping:
                return
            if event["event"] in ("edit", "view"):
                kept = []
                for queued in self._queue:
                    if queued["event"] == event["event"] and queued["file"] == event["file"]:
                        _carry_figures(queued, event)
                    else:
                        kept.append(queued)
                self._queue = kept
            self._queue.append(event)
            self._start_thread()
            self._lock.notify()

    def call_at(self, key, deadline, function, replace=True):
        """Runs `function` on the writer thread at `deadline` (time.time()). A waiting call with the
        same key is replaced (or, with `replace` false, kept and this one dropped), so that a timer
        moved later by each keystroke costs one assignment."""
        with self._lock:
            if self._stopping:
                return
            timer = self._timers.get(key)
            if timer is not None:
                if replace:
                    timer[0], timer[1] = deadline, function
                return  # The thread wakes at the old deadline and waits again.
            self._timers[key] = [deadline, function]
            self._start_thread()
            self._lock.notify()

    def cancel(self, key):
        with self._lock:
            self._timers.pop(key, None)

    def shutdown(self, timeout):
        """Writes what waits, ends the child's input and waits up to `timeout` seconds for it."""
        with self._lock:
            self._stopping = True
            self._timers.clear()
            self._lock.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        process = self._process
        if process is not None:
            try:
                process.wait(max(0.1, timeout / 2))
            except subprocess.TimeoutExpired:
                self.remember("clsfile hook --stdio was still busy when LibreOffice quit")

    def remember(self, line):
        """Keeps an error line for "Show clsfile errors" and appends it to the log."""
        stamped = time.strftime("%Y-%m-%d %H:%M:%S ") + line.rstrip()
        self.errors.append(stamped)
        if self.log_path:
            try:
                os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
                with open(self.log_path, "a", encoding="utf-8") as log:
                    log.write(stamped + "\n")
            except OSError:
                pass

    # -- the writer thread --------------------------------------------------------------------

    def _start_thread(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="clsfile-writer", daemon=True)
            self._thread.start()

    def _run(self):
        while True:
            with self._lock:
                while True:
                    now = time.time()
                    due = [key for key, (deadline, _) in self._timers.items() if deadline <= now]
                    if self._queue or due or self._stopping:
                        break
                    wait = min((deadline for deadline, _ in self._timers.values()), default=None)
                    self._lock.wait(None if wait is None else wait - now)
                functions = [self._timers.pop(key)[1] for key in due]
                stopping = self._stopping
            # Timers queue events through send(): run them first, then write everything waiting.
            for function in functions:
                try:
                    function()
                except Exception as error:  # A timer's failure must not end the thread.
                    self.remember("internal error in a timer: %r" % (error,))
            with self._lock:
                events, self._queue = self._queue, []
            for event in events:
                self._write(json.dumps(event, separators=(",", ":")) + "\n")
            if stopping:
                with self._lock:
                    if not self._queue:
                        break
        if self._process is not None and self._process.stdin:
            try:
                self._process.stdin.close()
            except OSError:
                pass

    def _write(self, line):
        for attempt in (1, 2):
            process = self._running_process()
            if process is None:
                return
            try:
                process.stdin.write(line.encode("utf-8"))
                process.stdin.flush()
                return
            except (BrokenPipeError, OSError, ValueError):
                # It died between the check and the write: start another once.
                self._process = None
                if attempt == 2:
                    self.remember("could not write to clsfile hook --stdio; an event was lost")

    def _running_process(self):
        process = self._process
        if process is not None and process.poll() is None:
            return process
        if process is not None:
            self.remember("clsfile hook --stdio ended (status %s); starting it again" % process.returncode)
        self._process = None
        try:
            # Its own session: a Ctrl+C in LibreOffice's terminal must not kill it before it
            # has recorded the closes that LibreOffice sends on its way out.
            process = subprocess.Popen([self.command, "hook", "--stdio"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       start_new_session=True)
        except OSError as error:
            if not self._warned_missing:
                self._warned_missing = True
                self.remember("could not run %s (%s): set CLSFILE_COMMAND or put clsfile on PATH; "
                              "nothing is recorded" % (self.command, error.strerror or error))
            return None
        self._process = process
        for stream, reader in ((process.stdout, self._read_answers), (process.stderr, self._read_errors)):
            threading.Thread(target=reader, args=(stream,), name="clsfile-reader", daemon=True).start()
        return process

    def _read_answers(self, stream):
        """Answers are {"ok":true} or {"ok":false,"error":...}: only the refusals are kept."""
        for raw in stream:
            try:
                answer = json.loads(raw)
            except ValueError:
                self.remember(raw.decode("utf-8", "replace"))
                continue
            if isinstance(answer, dict) and answer.get("ok") is False:
                self.remember(str(answer.get("error", raw)))

    def _read_errors(self, stream):
        for raw in stream:
            self.remember(raw.decode("utf-8", "replace"))


def _carry_figures(older, newer):
    """Adds the typed and pasted characters of an event that `newer` replaces to those of `newer`."""
    if "typed" not in older:
        return
    for key in ("typed", "pasted"):
        newer[key] = newer.get(key, 0) + older[key]
    newer["largestPaste"] = max(newer.get("largestPaste", 0), older["largestPaste"])


class Session:
    """One file from its open to its close, with its throttles and its input figures."""

    def __init__(self, path, opened_at, figures, is_session_file):
        self.path = path
        # The file `clsfile open` runs LibreOffice on: clsfile times it itself.
        self.is_session_file = is_session_file
        self.opened_at = opened_at
        self.input_at = None      # the latest input in the document
        self.last_edit = -1e18    # when the last edit event was queued
        self.last_sent = -1e18    # when the last event was queued
        self.last_view = -1e18
        self.sent_view = None     # (first, last, total) of the last view sent
        self.figures = figures
        self.sent = Figures()     # the figures sent since the open (see Tracker._send)


class Figures:
    """Typed characters, pasted ones (text from outside the document), moved ones (the
    document's own text cut or copied and pasted in it), and the largest paste."""

    def __init__(self):
        self.typed = 0
        self.pasted = 0
        self.moved = 0
        self.largest_paste = 0
        self.unsent = 0           # the largest paste not sent yet

    def add_paste(self, count):
        self.pasted += count
        self.largest_paste = max(self.largest_paste, count)
        self.unsent = max(self.unsent, count)

    def add(self, other):
        self.typed += other.typed
        self.pasted += other.pasted
        self.moved += other.moved
        self.largest_paste = max(self.largest_paste, other.largest_paste)
        self.unsent = max(self.unsent, other.unsent)

    def since(self, sent):
        """The figures counted since `sent` (which they become), for an event: the characters typed,
        pasted and moved, and the largest of those pastes."""
        typed, pasted = max(0, self.typed - sent.typed), max(0, self.pasted - sent.pasted)
        moved = max(0, self.moved - sent.moved)
        sent.typed, sent.pasted, sent.moved = sent.typed + typed, sent.pasted + pasted, sent.moved + moved
        largest, self.unsent = min(self.unsent, pasted), 0
        return {"typed": typed, "pasted": pasted, "moved": moved, "largestPaste": largest}

    def as_json(self):
        return {"typed": self.typed, "pasted": self.pasted, "moved": self.moved, "largestPaste": self.largest_paste}


class Tracker:
    """The sessions of one LibreOffice process. Its methods are called on LibreOffice's thread,
    and by the channel's timers on the writer thread: a lock keeps the sessions consistent."""

    # Seconds between writes of CLSFILE_SESSION_INPUT while input goes on, as the other plugins.
    SESSION_INPUT_INTERVAL = 2.0

    def __init__(self, settings, channel, clock=time.time):
        self.settings = settings
        self.channel = channel
        self.clock = clock
        self.sessions = {}        # path -> Session
        # The figures of the file of `clsfile open`, counted over the whole run of LibreOffice
        # (which that command times), however often the document is closed and opened again.
        self.session_file_figures = Figures()
        self._lock = threading.RLock()

    def is_session_file(self, path):
        """True for the file `clsfile open` runs LibreOffice on."""
        return self.settings.session_file is not None and os.path.realpath(path) == self.settings.session_file

    def open(self, path, figures=None):
        """Starts the session of `path` (once); `figures` are those counted before it had a file."""
        with self._lock:
            if path in self.sessions:
                return self.sessions[path]
            is_session_file = self.is_session_file(path)
            if is_session_file:
                if figures is not None:
                    self.session_file_figures.add(figures)
                figures = self.session_file_figures
            session = Session(path, self.clock(), figures or Figures(), is_session_file)
            self.sessions[path] = session
            self._send("open", session, self.settings.goal())
            return session

    def input(self, session):
        """Input in the document: an edit now when the last is an interval old, and a trailing
        edit when the input pauses."""
        with self._lock:
            now = self.clock()
            session.input_at = now
            self.channel.call_at(("trail", session.path), now + self.settings.pause,
                                 lambda: self._trail(session))
            if now - session.last_edit >= self.settings.edit_interval:
                session.last_edit = now
                self._send("edit", session)

    def typed(self, session, count):
        # Under the lock: the writer thread's trailing edit reads and marks the figures sent.
        with self._lock:
            session.figures.typed += count
            self._figures_changed(session)

    def pasted(self, session, count):
        if count <= 0:
            return
        with self._lock:
            session.figures.add_paste(count)
            self._figures_changed(session)

    def moved(self, session, count):
        """`count` characters of the document's own text pasted in it: moved, not pasted."""
        if count <= 0:
            return
        with self._lock:
            session.figures.moved += count
            self._figures_changed(session)

    def save(self, session):
        with self._lock:
            self._send("save", session, self.settings.goal())

    def wants_view(self, session):
        """True when the view may be sent again (reading progress on, the interval over)."""
        return self.settings.reading and self.clock() - session.last_view >= self.settings.view_interval

    def view(self, session, first, last, total):
        """The visible part, as lines `first`..`last` of `total` (1-based)."""
        total = max(1, total)
        first = min(max(1, first), total)
        last = min(max(first, last), total)
        with self._lock:
            if session.sent_view == (first, last, total):
                return
            session.last_view = self.clock()
            session.sent_view = (first, last, total)
            self._send("view", session, {"view": [first, last], "totalLines": total})

    def close(self, path):
        """Ends the session of `path` with its open time and figures."""
        with self._lock:
            session = self.sessions.pop(path, None)
            if session is None:
                return None
            self.channel.cancel(("trail", path))
            self.channel.cancel(("input", path))
            if session.is_session_file:
                self._write_session_input(session)
            else:
                extra = {"openedAt": round(session.opened_at, 3)}
                extra.update(self.settings.goal())
                self._send("close", session, extra)
            return session

    def close_all(self):
        for path in list(self.sessions):
            self.close(path)

    # -- internals ----------------------------------------------------------------------------

    def _send(self, event, session, extra=None):
        # `clsfile open` times its file itself; only what the window shows is the plugin's to tell.
        if not self.settings.enabled or (event != "view" and session.is_session_file):
            return
        message = {"event": event, "file": session.path, "editor": EDITOR}
        if event != "open" and session.input_at is not None:
            message["inputAt"] = round(session.input_at, 3)
        if extra:
            message.update(extra)
        # The input since the figures last sent: with an edit or a save when there is some, with a
        # close always (the rest).
        if event == "close" or event in ("edit", "save") and (
                session.figures.typed > session.sent.typed or session.figures.pasted > session.sent.pasted
                or session.figures.moved > session.sent.moved):
            message.update(session.figures.since(session.sent))
        session.last_sent = self.clock()
        self.channel.send(message)

    def _trail(self, session):
        with self._lock:
            if self.sessions.get(session.path) is not session or session.input_at is None \
                    or session.input_at <= session.last_sent:
                return
            session.last_edit = self.clock()
            self._send("edit", session)

    def _figures_changed(self, session):
        # For the file of `clsfile open`, the running totals go to CLSFILE_SESSION_INPUT at most
        # every few seconds (written by the writer thread, off LibreOffice's thread).
        if self.settings.session_input and session.is_session_file:
            self.channel.call_at(("input", session.path), self.clock() + self.SESSION_INPUT_INTERVAL,
                                 lambda: self._write_session_input(session), replace=False)

    def _write_session_input(self, session):
        if not self.settings.session_input:
            return
        target = self.settings.session_input
        temporary = target + ".tmp"
        try:
            with open(temporary, "w", encoding="utf-8") as output:
                json.dump(session.figures.as_json(), output)
            os.replace(temporary, target)
        except OSError as error:
            self.channel.remember("could not write %s: %s" % (target, error.strerror or error))
