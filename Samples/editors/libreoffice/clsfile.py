"""clsfile for LibreOffice: records editing sessions of Writer, Calc, Impress and Draw documents
with `clsfile hook --stdio` (see README.md).

LibreOffice runs `Recorder` as a job when it starts and when a document is created or loaded
(Jobs.xcu). The first run installs one `Extension` per LibreOffice process: a listener of every
document's events (theGlobalEventBroadcaster) and of the end of LibreOffice (the Desktop's
terminate listeners). For each document it keeps a `Document`, which gets every view's key and
mouse input (XUserInputInterception) and the frame's paste commands (a dispatch provider
interceptor), and turns them into the events and figures of clsfile_tracker.Tracker.
Everything here runs on LibreOffice's main thread, except what clsfile_tracker runs on its own
writer thread, which never touches UNO.
"""

import os

import uno
import unohelper
from com.sun.star.awt import XCallback, XKeyHandler, XMouseClickHandler
from com.sun.star.awt.Key import ESCAPE
from com.sun.star.awt.KeyGroup import CURSOR as KEYGROUP_CURSOR, MISC as KEYGROUP_MISC, TYPE as KEYGROUP_MASK
from com.sun.star.awt.KeyModifier import MOD1, MOD2
from com.sun.star.document import XDocumentEventListener
from com.sun.star.frame import XDispatch, XDispatchProviderInterceptor, XTerminateListener
from com.sun.star.task import XJob, XJobExecutor

import clsfile_tracker

IMPLEMENTATION = "org.clsfile.libreoffice.Recorder"

# The documents recorded, by the service their model supports.
DOCUMENT_SERVICES = (
    "com.sun.star.text.TextDocument",
    "com.sun.star.sheet.SpreadsheetDocument",
    "com.sun.star.presentation.PresentationDocument",
    "com.sun.star.drawing.DrawingDocument",
)

# The dispatch commands that paste (".uno:NAME", arguments after "?"); ClipboardFormatItems is
# the format list of the toolbar's Paste button.
PASTE_COMMANDS = frozenset(("Paste", "PasteSpecial", "PasteUnformatted", "ClipboardFormatItems"))
# The commands that put the document's own text on the clipboard: a paste of it is moved, not pasted.
OWN_TEXT_COMMANDS = frozenset(("Cut", "Copy"))
# How many of the texts last cut or copied a document keeps as its own.
OWN_TEXTS_KEPT = 20


def trimmed(text):
    """Text with one kind of line break and none at its ends, for comparing pastes."""
    return (text or "").replace("\r\n", "\n").replace("\r", "\n").strip("\n")

# Writer's page layout, in twips: the gap above the first page and between pages (the
# document border of its layout, 0.5 cm). Page sizes come from the page style.
WRITER_PAGE_GAP = 284
TWIPS_PER_MM100 = 1440 / 2540


class Extension(unohelper.Base, XDocumentEventListener, XTerminateListener):
    """The one recorder of a LibreOffice process."""

    def __init__(self, context):
        self.context = context
        smgr = context.ServiceManager
        self.desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        settings = clsfile_tracker.Settings()
        self.channel = clsfile_tracker.Channel(settings.command, self._log_path())
        self.tracker = clsfile_tracker.Tracker(settings, self.channel)
        # Runs a call on the main thread: the writer thread uses it to poll the views.
        self.main_thread = smgr.createInstanceWithContext("com.sun.star.awt.AsyncCallback", context)
        self.documents = []

    def install(self):
        broadcaster = self.context.getValueByName("/singletons/com.sun.star.frame.theGlobalEventBroadcaster")
        broadcaster.addDocumentEventListener(self)
        self.desktop.addTerminateListener(self)
        # Documents loaded before the first job ran (those named on the command line).
        components = self.desktop.getComponents().createEnumeration()
        while components.hasMoreElements():
            self.attach(components.nextElement())

    def _log_path(self):
        """$(user)/clsfile/errors.log in the LibreOffice profile."""
        try:
            paths = self.context.ServiceManager.createInstanceWithContext(
                "com.sun.star.util.PathSubstitution", self.context)
            return uno.fileUrlToSystemPath(paths.substituteVariables("$(user)/clsfile/errors.log", True))
        except Exception:
            return None

    def document(self, model):
        for document in self.documents:
            if document.model == model:
                return document
        return None

    def attach(self, model, controller=None):
        """Follows a document (once) and its views."""
        if model is None or not hasattr(model, "supportsService") \
                or not any(model.supportsService(name) for name in DOCUMENT_SERVICES):
            return
        document = self.document(model)
        if document is None:
            document = Document(self, model)
            self.documents.append(document)
            controllers = model.getControllers()
            while controllers.hasMoreElements():
                document.attach_view(controllers.nextElement())
            document.start()
        if controller is not None:
            document.attach_view(controller)

    # XDocumentEventListener
    def documentEventOccured(self, event):
        try:
            name = event.EventName
            if name in ("OnNew", "OnLoad", "OnViewCreated"):
                self.attach(event.Source, getattr(event, "ViewController", None))
                return
            document = self.document(event.Source)
            if document is None:
                return
            if name in ("OnSaveDone", "OnSaveAsDone"):
                document.saved()
            elif name == "OnUnload":
                # Not OnPrepareUnload: the close may still be cancelled in "Save Document?".
                document.unload()
                self.documents.remove(document)
        except Exception as error:  # An exception here would reach LibreOffice's event loop.
            self.channel.remember("internal error on %s: %r" % (getattr(event, "EventName", "?"), error))

    # XTerminateListener
    def queryTermination(self, event):
        pass

    def notifyTermination(self, event):
        # Documents still open are closed now, then LibreOffice waits (at most 3 s) for clsfile.
        for document in list(self.documents):
            document.unload()
        self.documents = []
        self.tracker.close_all()
        self.channel.shutdown(3.0)

    def disposing(self, source):
        pass


class Document:
    """One document model: its session once it is a real file, its views and input."""

    def __init__(self, extension, model):
        self.extension = extension
        self.tracker = extension.tracker
        self.model = model
        self.is_writer = model.supportsService("com.sun.star.text.TextDocument")
        self.session = None
        # Input before the document has a file (a new document before its first save).
        self.figures = clsfile_tracker.Figures()
        # The texts last cut or copied in the document, newest last: its own text, if pasted.
        self.own = []
        self.views = []          # (controller, frame, interceptor) of each view followed
        self.poller = None

    def path(self):
        """The document's file, when it is a real file (not a new or remote document)."""
        url = self.model.getURL()
        if not url.startswith("file://"):
            return None
        path = uno.fileUrlToSystemPath(url)
        return path if os.path.isfile(path) else None

    def start(self):
        path = self.path()
        if path is None or self.session is not None:
            return
        self.session = self.tracker.open(path, self.figures)
        self.figures = None
        if self.tracker.settings.reading:
            self.poller = ViewPoller(self)
            self.poller.schedule()
        self.view()

    def attach_view(self, controller):
        if controller is None or any(view[0] == controller for view in self.views):
            return
        controller.addKeyHandler(KeyHandler(self))
        controller.addMouseClickHandler(MouseHandler(self))
        frame = controller.getFrame()
        interceptor = PasteInterceptor(self, controller)
        frame.registerDispatchProviderInterceptor(interceptor)
        self.views.append((controller, frame, interceptor))

    def saved(self):
        path = self.path()
        if self.session is not None and self.session.path != path:
            # Saved as another file: the old file's session ends, the new file's starts.
            self.tracker.close(self.session.path)
            self.session = None
            self.figures = clsfile_tracker.Figures()
        self.start()
        if self.session is not None:
            self.tracker.save(self.session)

    def unload(self):
        if self.poller is not None:
            self.poller.stop()
        for controller, frame, interceptor in self.views:
            try:
                # The frame outlives the document (it shows the Start Center next).
                frame.releaseDispatchProviderInterceptor(interceptor)
            except Exception:
                pass  # The frame is being disposed already.
        self.views = []
        if self.session is not None:
            self.tracker.close(self.session.path)
            self.session = None

    # -- input --------------------------------------------------------------------------------

    def input(self):
        if self.session is not None:
            self.tracker.input(self.session)
            if self.tracker.wants_view(self.session):
                self.view()

    def typed(self, count):
        if self.session is not None:
            self.tracker.typed(self.session, count)
        else:
            self.figures.typed += count

    def pasted(self, count, text=None, before=None):
        """`count` characters pasted, the clipboard's `text`: moved when it is the document's own
        text (cut or copied in it, or in `before`, the text it held before the paste), else pasted."""
        if count <= 0:
            return
        own = trimmed(text)
        if own and (own in self.own or (before is not None and own in trimmed(before))):
            if self.session is not None:
                self.tracker.moved(self.session, count)
            else:
                self.figures.moved += count
        elif self.session is not None:
            self.tracker.pasted(self.session, count)
        else:
            self.figures.add_paste(count)

    def remember_own(self, controller):
        """Keeps the selected text, about to be cut or copied, as the document's own."""
        own = trimmed(self.selected_text(controller))
        if own:
            self.own.append(own)
            del self.own[:-OWN_TEXTS_KEPT]

    def selected_text(self, controller):
        """The text of the selection (its ranges one after another); empty for a picture or frame."""
        selection = controller.getSelection()
        parts = []
        if selection is not None and hasattr(selection, "getCount") and hasattr(selection, "getByIndex"):
            for index in range(selection.getCount()):
                text_range = selection.getByIndex(index)
                if hasattr(text_range, "getString"):
                    parts.append(text_range.getString())
        elif selection is not None and hasattr(selection, "getString"):
            parts.append(selection.getString())  # a cell or a shape's text
        return "\n".join(parts)

    def body_text(self):
        """Writer's body text, for a paste to look for itself in; None for other documents."""
        return self.model.getText().getString() if self.is_writer else None

    def text_length(self, controller):
        """For a paste in Writer: the body text's characters (a paragraph break is one) and those
        selected, which the paste replaces; None for other documents."""
        if not self.is_writer:
            return None
        selected = 0
        selection = controller.getSelection()
        # Text selections are a list of ranges; a selected picture or frame has no text.
        if selection is not None and hasattr(selection, "getCount") and hasattr(selection, "getByIndex"):
            for index in range(selection.getCount()):
                text_range = selection.getByIndex(index)
                if hasattr(text_range, "getString"):
                    selected += len(text_range.getString())
        return len(self.model.getText().getString()), selected

    def clipboard_text(self):
        """The clipboard's plain text ("" when it has none)."""
        try:
            clipboard = self.extension.context.ServiceManager.createInstanceWithContext(
                "com.sun.star.datatransfer.clipboard.SystemClipboard", self.extension.context)
            contents = clipboard.getContents()
            for flavor in contents.getTransferDataFlavors():
                if flavor.MimeType.startswith("text/plain;charset=utf-16"):
                    return contents.getTransferData(flavor)
        except Exception:
            pass
        return ""

    # -- views --------------------------------------------------------------------------------

    def view(self):
        """Sends the visible pages (Writer) or slide (Impress, Draw) when reading progress is on."""
        if self.session is None or not self.tracker.settings.reading or not self.views:
            return
        controller = self.views[0][0]
        try:
            visible = self.writer_pages(controller) if self.is_writer else self.slide(controller)
        except Exception as error:
            self.extension.channel.remember("could not read the visible part: %r" % (error,))
            return
        if visible is not None:
            self.tracker.view(self.session, *visible)

    def writer_pages(self, controller):
        """The pages Writer shows, from its view data: "cursorX;cursorY;zoom;visibleLeft;visibleTop;
        visibleRight;visibleBottom;..." in twips, pages stacked with a gap above each. A layout
        of pages side by side (a wide window zoomed out) is taken as one column."""
        fields = controller.getViewData().split(";")
        top, bottom = int(fields[4]), int(fields[6])
        style = self.model.getStyleFamilies().getByName("PageStyles").getByName(
            controller.getViewCursor().PageStyleName)
        pitch = style.Height * TWIPS_PER_MM100 + WRITER_PAGE_GAP
        total = controller.PageCount
        first = int((top - WRITER_PAGE_GAP) // pitch) + 1
        last = int((bottom - WRITER_PAGE_GAP) // pitch) + 1
        return first, last, total

    def slide(self, controller):
        if not hasattr(controller, "getCurrentPage"):
            return None  # Calc: no view is sent.
        number = controller.getCurrentPage().Number
        return number, number, self.model.getDrawPages().getCount()


class KeyHandler(unohelper.Base, XKeyHandler):
    """A key that inserts a character is typed and is input; so is a key that moves the cursor or
    deletes (arrows, Page Up, Backspace...), as a cursor movement is in Vim. Other shortcuts
    (Ctrl+S, Ctrl+Q) are not input: a save or quit after a break must not end the break as work.
    A paste is input when the paste command runs."""

    def __init__(self, document):
        self.document = document

    def keyPressed(self, event):
        # A UNO char arrives as uno.Char. Keys with Ctrl or Alt are shortcuts; Enter and Tab
        # insert a paragraph break and a tab.
        char = getattr(event.KeyChar, "value", event.KeyChar)
        if char and not event.Modifiers & (MOD1 | MOD2) and (char >= " " and char != "\x7f" or char in "\r\t"):
            self.document.typed(1)
            self.document.input()
        elif (event.KeyCode & KEYGROUP_MASK) in (KEYGROUP_CURSOR, KEYGROUP_MISC) and event.KeyCode != ESCAPE:
            self.document.input()
        return False  # LibreOffice handles the key as usual.

    def keyReleased(self, event):
        return False

    def disposing(self, source):
        pass


class MouseHandler(unohelper.Base, XMouseClickHandler):
    """A click in the document is input, as a cursor movement is in Vim."""

    def __init__(self, document):
        self.document = document

    def mousePressed(self, event):
        self.document.input()
        return False

    def mouseReleased(self, event):
        return False

    def disposing(self, source):
        pass


class PasteInterceptor(unohelper.Base, XDispatchProviderInterceptor):
    """Sits in front of a frame's dispatch providers and wraps the paste commands; every other
    command goes to the next provider unchanged. Ctrl+V, the menus and the toolbar all dispatch
    through the frame, so all of their pastes pass here."""

    def __init__(self, document, controller):
        self.document = document
        self.controller = controller
        self.slave = None
        self.master = None

    def getSlaveDispatchProvider(self):
        return self.slave

    def setSlaveDispatchProvider(self, provider):
        self.slave = provider

    def getMasterDispatchProvider(self):
        return self.master

    def setMasterDispatchProvider(self, provider):
        self.master = provider

    def queryDispatch(self, url, target, flags):
        dispatch = self.slave.queryDispatch(url, target, flags) if self.slave is not None else None
        complete = url.Complete
        command = complete[5:].split("?", 1)[0] if complete.startswith(".uno:") else None
        if dispatch is not None and command in PASTE_COMMANDS:
            return PasteDispatch(self.document, self.controller, dispatch)
        if dispatch is not None and command in OWN_TEXT_COMMANDS:
            return OwnTextDispatch(self.document, self.controller, dispatch)
        return dispatch

    def queryDispatches(self, requests):
        return tuple(self.queryDispatch(request.FeatureURL, request.FrameName, request.SearchFlags)
                     for request in requests)


class OwnTextDispatch(unohelper.Base, XDispatch):
    """Runs a cut or copy command, keeping the selection's text first as the document's own."""

    def __init__(self, document, controller, dispatch):
        self.document = document
        self.controller = controller
        self.dispatch_ = dispatch

    def dispatch(self, url, arguments):
        try:
            self.document.remember_own(self.controller)
        except Exception as error:
            self.document.extension.channel.remember("could not read the selection cut or copied: %r" % (error,))
        self.dispatch_.dispatch(url, arguments)

    def addStatusListener(self, listener, url):
        self.dispatch_.addStatusListener(listener, url)

    def removeStatusListener(self, listener, url):
        self.dispatch_.removeStatusListener(listener, url)


class PasteDispatch(unohelper.Base, XDispatch):
    """Runs a paste command and counts the characters it inserted: the growth of Writer's text
    plus the selection it replaced, or elsewhere the clipboard's plain text. A paste of the
    document's own text (cut or copied in it, or held by it before) is moved, not pasted."""

    def __init__(self, document, controller, dispatch):
        self.document = document
        self.controller = controller
        self.dispatch_ = dispatch

    def dispatch(self, url, arguments):
        document = self.document
        before, held, clipboard = None, None, ""
        try:
            before = document.text_length(self.controller)
            held = document.body_text()
            clipboard = document.clipboard_text()
        except Exception as error:
            document.extension.channel.remember("could not measure a paste: %r" % (error,))
        # The paste runs to its end here (a Paste Special dialog included) before dispatch returns.
        self.dispatch_.dispatch(url, arguments)
        try:
            if before is not None:
                length, selected = before
                count = document.text_length(self.controller)[0] - length + selected
                if count <= 0:
                    # Into a table, frame or header, which are not the body text.
                    count = len(clipboard)
            else:
                count = len(clipboard)
            document.pasted(count, clipboard, held)
            document.input()
        except Exception as error:
            document.extension.channel.remember("could not measure a paste: %r" % (error,))

    def addStatusListener(self, listener, url):
        self.dispatch_.addStatusListener(listener, url)

    def removeStatusListener(self, listener, url):
        self.dispatch_.removeStatusListener(listener, url)


class ViewPoller(unohelper.Base, XCallback):
    """With reading progress on, looks at the visible pages every view interval, also when they
    changed without input (a scroll with the mouse wheel). The writer thread's timer asks
    AsyncCallback to call `notify` on the main thread, where UNO may be used."""

    def __init__(self, document):
        self.document = document
        self.stopped = False

    def schedule(self):
        tracker = self.document.tracker
        tracker.channel.call_at(("view", self.document.session.path),
                                tracker.clock() + tracker.settings.view_interval,
                                lambda: self.document.extension.main_thread.addCallback(self, None))

    def stop(self):
        self.stopped = True

    def notify(self, data):
        if self.stopped or self.document.session is None:
            return
        self.document.view()
        self.schedule()


_extension = None


def extension(context):
    """The process's Extension, installed at the first call."""
    global _extension
    if _extension is None:
        _extension = Extension(context)
        _extension.install()
    return _extension


class Recorder(unohelper.Base, XJob, XJobExecutor):
    """The job of Jobs.xcu (LibreOffice starts, a document is created or loaded) and the command
    of the "Show clsfile errors" menu entry (Addons.xcu)."""

    def __init__(self, context):
        self.context = context

    def execute(self, arguments):
        recorder = extension(self.context)
        for argument in arguments:
            if argument.Name == "Environment":
                for value in argument.Value:
                    if value.Name == "Model":
                        recorder.attach(value.Value)
        return None

    def trigger(self, command):
        recorder = extension(self.context)
        if command != "errors":
            return
        errors = list(recorder.channel.errors)
        text = "\n".join(errors) if errors else "clsfile reported no errors."
        if recorder.channel.log_path:
            text += "\n\nThe log: " + recorder.channel.log_path
        frame = recorder.desktop.getCurrentFrame()
        toolkit = self.context.ServiceManager.createInstanceWithContext("com.sun.star.awt.Toolkit", self.context)
        box = toolkit.createMessageBox(frame.getContainerWindow() if frame else None,
                                       uno.Enum("com.sun.star.awt.MessageBoxType", "INFOBOX"),
                                       uno.getConstantByName("com.sun.star.awt.MessageBoxButtons.BUTTONS_OK"),
                                       "clsfile errors", text)
        box.execute()


g_ImplementationHelper = unohelper.ImplementationHelper()
g_ImplementationHelper.addImplementation(Recorder, IMPLEMENTATION, ("com.sun.star.task.Job",))
