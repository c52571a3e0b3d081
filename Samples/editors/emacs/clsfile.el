;;; clsfile.el --- Record editing sessions with clsfile  -*- lexical-binding: t; -*-

;; Author: clsfile contributors
;; Version: 0.2.0
;; Package-Requires: ((emacs "26.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/clsfile/clsfile

;; This file is not part of GNU Emacs.

;;; Commentary:

;; `clsfile-mode' is a global minor mode that tells `clsfile hook' what you do
;; to real files, so that clsfile records your time, progress and word count:
;;
;;   open   when a file is visited (`find-file-hook'), also a new file whose
;;          folder exists
;;   edit   when the text changes (`after-change-functions'), at most every
;;          `clsfile-edit-interval' seconds per file (never more than half of
;;          $CLSFILE_IDLE_TIMEOUT), and once more a short pause after the input
;;   save   after every save (`after-save-hook')
;;   view   the visible lines (`window-scroll-functions', `post-command-hook'),
;;          at most every `clsfile-view-interval' seconds per file
;;   close  when the buffer is killed (`kill-buffer-hook') and for every file
;;          still open when Emacs exits (`kill-emacs-hook')
;;
;; Every event but open carries --input-at, the time of the latest text change,
;; cursor movement or scroll in the file's buffer, so clsfile counts the work at
;; the time it was done; close carries --opened-at. Edit, save and close carry the
;; characters typed, pasted and moved in the file since the figures last sent for
;; its open (--typed, --pasted, --moved, --largest-paste; see `clsfile--figures'),
;; so an Emacs that is killed loses only those since its last event:
;;
;;   typed   what `self-insert-command' inserts (`post-self-insert-hook'): keys,
;;           RET, input methods
;;   moved   a paste of the file's own text: killed or copied in it in this run
;;           of Emacs, or held by it before the paste (see `clsfile--own-p')
;;   pasted  any other text `insert-for-yank' inserts: `yank', `yank-pop', `clipboard-yank',
;;           `mouse-yank-primary', `insert-register', a terminal's bracketed paste
;;           (`xterm-paste'); and text dropped on a window (`dnd-insert-text')
;;
;; For the file that `clsfile open' runs Emacs on ($CLSFILE_SESSION_FILE) only
;; views are sent: clsfile times that session itself, and the totals of typed and
;; pasted characters are written as JSON to $CLSFILE_SESSION_INPUT when the file
;; opens, at most every 2 s while input goes on, before each save, and when the
;; file is closed or Emacs exits.
;;
;; Calls run as asynchronous processes, one at a time and in order, so Emacs
;; never waits; the final closes on exit use `call-process' so they are not lost.
;;
;; Setup:
;;
;;   (require 'clsfile)
;;   (setq clsfile-command "/usr/local/bin/clsfile") ; if not on PATH
;;   (clsfile-mode 1)

;;; Code:

(require 'cl-lib)

(defgroup clsfile nil
  "Record editing sessions with clsfile."
  :group 'tools
  :prefix "clsfile-")

(defcustom clsfile-command "clsfile"
  "The clsfile executable: a name found on `exec-path', or a path."
  :type 'string)

(defcustom clsfile-store nil
  "The store file, or nil for $CLSFILE_STORE, else clsfile's default."
  :type '(choice (const :tag "Default" nil) file))

(defcustom clsfile-edit-interval 120
  "Seconds between two edit events for one file.
Never more than half of the idle timeout, $CLSFILE_IDLE_TIMEOUT (300)."
  :type 'number)

(defcustom clsfile-view-interval 10
  "Seconds between two view events for one file."
  :type 'number)

(defcustom clsfile-target-words nil
  "A word count to measure progress toward, or nil.
A buffer-local value (e.g. a file-local variable) overrides the global one."
  :type '(choice (const :tag "None" nil) natnum))
;;;###autoload
(put 'clsfile-target-words 'safe-local-variable (lambda (value) (or (null value) (natnump value))))

(defcustom clsfile-reading nil
  "Non-nil when files are read: progress is then the share of lines viewed.
A buffer-local value (e.g. a file-local variable) overrides the global one."
  :type 'boolean)
;;;###autoload
(put 'clsfile-reading 'safe-local-variable #'booleanp)

(defvar clsfile--queue nil
  "Events waiting for a process, oldest first: (ARGS COUNTS SENT).
See `clsfile--figures'.")
(defvar clsfile--process nil "The running clsfile process, if any.")
(defvar clsfile--opened (make-hash-table :test 'equal) "File with a session -> time of its open.")
(defvar clsfile--last-edit (make-hash-table :test 'equal) "File -> time of the last edit event.")
(defvar clsfile--last-sent (make-hash-table :test 'equal) "File -> time of the last event sent.")
(defvar clsfile--last-input (make-hash-table :test 'equal) "File -> time of the latest input.")
(defvar clsfile--edit-timers (make-hash-table :test 'equal) "File -> pending trailing edit timer.")
(defvar clsfile--quiet (make-hash-table :test 'equal)
  "File -> (SESSION-FILE . QUIET): whether it is $CLSFILE_SESSION_FILE.")
(defvar clsfile--last-view (make-hash-table :test 'equal) "File -> time of the last view event.")
(defvar clsfile--sent-view (make-hash-table :test 'equal) "File -> the last view sent.")
(defvar clsfile--view-timers (make-hash-table :test 'equal) "File -> pending view timer.")
(defvar clsfile--errors nil "What clsfile wrote on standard error, newest first.")
(defvar clsfile--warned nil "Non-nil once the missing executable was reported.")
(defvar clsfile--leaving nil "Non-nil while Emacs exits.")
(defvar clsfile--saving nil "Non-nil while a buffer is saved.")
(defvar clsfile--changed nil "Non-nil when the text changed during the current command.")
(defvar clsfile--position nil
  "(WINDOW BUFFER POINT START) of the selected window after the last command.")
(defvar-local clsfile--session-path nil "The file whose session this buffer has, if any.")
(defvar clsfile--counts (make-hash-table :test 'equal)
  "File with a session -> its input since its open.
A vector [TYPED PASTED LARGEST-PASTE UNSENT MOVED], UNSENT being the largest
paste not sent yet, MOVED the characters of the file's own text pasted.")
(defvar clsfile--sent (make-hash-table :test 'equal)
  "File with a session -> the figures sent since its open, [TYPED PASTED MOVED].")
(defvar clsfile--own nil
  "(FILE . TEXT) of the last kills and copies, newest first.
A paste of such a text into FILE is its own text moved, not pasted.")
(defvar clsfile--session-counts (vector 0 0 0 0 0)
  "The input in $CLSFILE_SESSION_FILE over the whole run of Emacs, through visits.")
(defvar clsfile--session-opened nil
  "Non-nil once $CLSFILE_SESSION_FILE was visited, so its input is ours to tell.")
(defvar clsfile--input-timer nil "The pending write of $CLSFILE_SESSION_INPUT.")
(defvar clsfile--inserted 1
  "Characters the last text change of the current command inserted.
Reset after each command, so that a buffer whose `after-change-functions'
leave ours out counts one character a key, not a stale length.")
(defvar-local clsfile--buffer-counts nil
  "The input counts of this buffer's session, so a keystroke needs no lookup.")

(defun clsfile--idle ()
  "The idle timeout: $CLSFILE_IDLE_TIMEOUT when a positive number, else 300."
  (let ((seconds (string-to-number (or (getenv "CLSFILE_IDLE_TIMEOUT") ""))))
    (if (> seconds 0) seconds 300)))

(defun clsfile--edit-wait ()
  "Seconds between two edit events.
At most half the idle timeout, so that no typing looks idle."
  (min clsfile-edit-interval (/ (clsfile--idle) 2.0)))

(defun clsfile--pause ()
  "Seconds after the last input at which the trailing edit is sent."
  (min 3 (/ (clsfile--idle) 4.0)))

(defun clsfile--time (time)
  "TIME, a float Unix time, as clsfile reads it."
  (format "%.3f" time))

(defun clsfile--usable ()
  "Return non-nil when events may be sent; say once when clsfile cannot run."
  (or (executable-find clsfile-command)
      (progn
        (unless clsfile--warned
          (setq clsfile--warned t)
          (clsfile--remember (format "%s is not executable" clsfile-command))
          (message "clsfile: %s is not executable; set `clsfile-command'. Sessions are not recorded."
                   clsfile-command))
        nil)))

(defun clsfile--quiet-p (path)
  "Non-nil when PATH is $CLSFILE_SESSION_FILE.
That is the file `clsfile open' runs Emacs on and records itself.  Both are
compared with symbolic links resolved; the answer is kept per file."
  (let ((session (getenv "CLSFILE_SESSION_FILE")))
    (and session (not (string= session ""))
         (let ((known (gethash path clsfile--quiet)))
           (if (equal (car known) session)
               (cdr known)
             (let ((quiet (string= (file-truename path) (file-truename session))))
               (puthash path (cons session quiet) clsfile--quiet)
               quiet))))))

(defun clsfile--path (&optional buffer)
  "The absolute file name of BUFFER when it visits a real file, else nil.
A file that does not exist yet is real when its folder exists."
  (let ((name (buffer-file-name (or buffer (current-buffer)))))
    (when (and name (not (file-remote-p name)))
      (let ((path (expand-file-name name)))
        (when (and (or (file-regular-p path)
                       (and (not (file-exists-p path))
                            (file-directory-p (file-name-directory path)))))
          path)))))

(defun clsfile--settings ()
  "The --target-words and --reading options of the current buffer."
  (append (when (and (numberp clsfile-target-words) (> clsfile-target-words 0))
            (list "--target-words" (number-to-string (truncate clsfile-target-words))))
          (when clsfile-reading (list "--reading"))))

(defun clsfile--arguments (event path &rest extra)
  "The command line for EVENT on PATH, with EXTRA arguments."
  (append (list clsfile-command "hook" event path "--editor" "emacs")
          extra
          (when clsfile-store (list "--store" (expand-file-name clsfile-store)))))

(defun clsfile--remember (text)
  "Keep TEXT, a message from clsfile."
  (dolist (line (split-string text "\n" t))
    (push (format "%s %s" (format-time-string "%H:%M:%S") line) clsfile--errors))
  (when (> (length clsfile--errors) 50)
    (setq clsfile--errors (cl-subseq clsfile--errors 0 50))))

(defun clsfile--with-input (event path extra)
  "EXTRA with --input-at for EVENT on PATH once input was seen.
Note the event as sent, for the trailing edit."
  (puthash path (float-time) clsfile--last-sent)
  (let ((input (gethash path clsfile--last-input)))
    (if (and input (not (equal event "open")))
        (append extra (list "--input-at" (clsfile--time input)))
      extra)))

(defun clsfile--send (event path &rest extra)
  "Queue EVENT for PATH with EXTRA arguments and --input-at.
A pending edit or view of PATH is replaced by the newer one, with the newer
--input-at."
  ;; `clsfile open' times its file itself: only what the window shows (for
  ;; reading progress) is the plugin's to tell.
  (when (and (clsfile--usable) (or (equal event "view") (not (clsfile--quiet-p path))))
    (setq extra (clsfile--with-input event path extra))
    (when (member event '("edit" "view"))
      (setq clsfile--queue
            (cl-remove-if (lambda (entry) (and (equal (nth 2 (car entry)) event) (equal (nth 3 (car entry)) path)))
                          clsfile--queue)))
    (setq clsfile--queue
          (append clsfile--queue (list (clsfile--entry event path extra))))
    (clsfile--next)))

(defun clsfile--entry (event path extra)
  "EVENT on PATH with EXTRA, to run, with the counts its figures come from."
  (let ((counted (not (equal event "view"))))
    (list (apply #'clsfile--arguments event path extra)
          (and counted (gethash path clsfile--counts))
          (and counted (gethash path clsfile--sent)))))

(defun clsfile--figures (entry)
  "The arguments of ENTRY with the figures it carries, taken when it starts.
They are the characters typed and pasted since the figures last sent for the
file's open, and the largest of those pastes.  An edit or a save with nothing
new carries none; a close always does (the rest, zeros included).  A queued
edit replaced by a newer one loses nothing: the figures are counted when one
starts."
  (let ((args (nth 0 entry)) (counts (nth 1 entry)) (sent (nth 2 entry)))
    ;; An open (or a view) carries none: clsfile refuses figures with it.
    (if (not (and counts sent (member (nth 2 args) '("edit" "save" "close"))))
        args
      (let ((typed (max 0 (- (aref counts 0) (aref sent 0))))
            (pasted (max 0 (- (aref counts 1) (aref sent 1))))
            (moved (max 0 (- (aref counts 4) (aref sent 2)))))
        (if (and (= typed 0) (= pasted 0) (= moved 0) (not (equal (nth 2 args) "close")))
            args
          (let ((largest (min (aref counts 3) pasted)))
            (aset sent 0 (+ (aref sent 0) typed))
            (aset sent 1 (+ (aref sent 1) pasted))
            (aset sent 2 (+ (aref sent 2) moved))
            (aset counts 3 0)
            (append args (list "--typed" (number-to-string typed)
                               "--pasted" (number-to-string pasted)
                               "--moved" (number-to-string moved)
                               "--largest-paste" (number-to-string largest)))))))))

(defun clsfile--next ()
  "Start the oldest queued call unless one runs."
  (unless (or clsfile--leaving
              (and clsfile--process (process-live-p clsfile--process)))
    (setq clsfile--process nil)
    (let* ((entry (pop clsfile--queue))
           (args (and entry (clsfile--figures entry))))
      (when args
        (condition-case err
            (let ((process-connection-type nil)
                  (default-directory "/"))
              (setq clsfile--process
                    (make-process
                     :name "clsfile"
                     :command args
                     :noquery t
                     :connection-type 'pipe
                     :filter (lambda (_process text) (clsfile--remember text))
                     :sentinel #'clsfile--sentinel)))
          (error (clsfile--remember (error-message-string err))
                 (run-at-time 0 nil #'clsfile--next)))))))

(defun clsfile--sentinel (process _event)
  "Start the next call when PROCESS ends."
  (unless (process-live-p process)
    (when (eq process clsfile--process)
      (setq clsfile--process nil))
    (clsfile--next)))

(defun clsfile--open ()
  "Send open for the current buffer the first time.
A buffer now visiting another file (`write-file') closes the old one's session."
  (let ((path (clsfile--path)))
    (when (and path (not (gethash path clsfile--opened)))
      (when (and clsfile--session-path (not (equal clsfile--session-path path)))
        (clsfile--close clsfile--session-path))
      (puthash path (float-time) clsfile--opened)
      (setq clsfile--session-path path)
      (let ((quiet (clsfile--quiet-p path)))
        (setq clsfile--session-opened (or clsfile--session-opened quiet))
        (puthash path (if quiet clsfile--session-counts (vector 0 0 0 0 0)) clsfile--counts)
        (puthash path (vector 0 0 0) clsfile--sent)
        (setq clsfile--buffer-counts (gethash path clsfile--counts))
        ;; Written at once: `clsfile open' then knows from the start that Emacs counts.
        (when quiet (clsfile--write-input)))
      (apply #'clsfile--send "open" path (clsfile--settings)))))

(defun clsfile--before-save ()
  "Write the session file's totals before it is saved (`before-save-hook').
`clsfile open' reads them when it sees the write, for the history's row of
that save."
  (when (and clsfile--buffer-counts (eq clsfile--buffer-counts clsfile--session-counts))
    (clsfile--write-input)))

(defun clsfile--input (path)
  "Note input in PATH's buffer now: send edit, at most every `clsfile--edit-wait'.
The trailing edit timer restarts, for the input the throttle holds back."
  (let ((now (float-time))
        (timer (gethash path clsfile--edit-timers)))
    (puthash path now clsfile--last-input)
    (when timer (cancel-timer timer))
    (puthash path (run-at-time (clsfile--pause) nil #'clsfile--trailing-edit path)
             clsfile--edit-timers)
    (when (>= (- now (gethash path clsfile--last-edit -1.0e9)) (clsfile--edit-wait))
      (puthash path now clsfile--last-edit)
      (clsfile--send "edit" path))))

(defun clsfile--trailing-edit (path)
  "Send edit for PATH when input came after its last event.
So the input of the last interval is not left for the next event."
  (remhash path clsfile--edit-timers)
  (let ((input (gethash path clsfile--last-input)))
    (when (and input (gethash path clsfile--opened)
               (> input (gethash path clsfile--last-sent -1.0e9)))
      (puthash path (float-time) clsfile--last-edit)
      (clsfile--send "edit" path))))

(defun clsfile--after-change (beg end _length)
  "Note a text change in the current buffer, from BEG to END, as input.
Changes a save makes (a final newline, `before-save-hook') are not input."
  (setq clsfile--inserted (- end beg))
  (let ((path (and (not clsfile--saving) (clsfile--path))))
    (when path
      (unless (gethash path clsfile--opened) (clsfile--open))
      (setq clsfile--changed t)
      (clsfile--input path))))

(defun clsfile--input-changed ()
  "Have $CLSFILE_SESSION_INPUT written when the input was in its file."
  (when (and (eq clsfile--buffer-counts clsfile--session-counts) (not clsfile--input-timer))
    (setq clsfile--input-timer (run-at-time 2 nil #'clsfile--write-input))))

(defun clsfile--write-input ()
  "Write the totals of $CLSFILE_SESSION_FILE's input to $CLSFILE_SESSION_INPUT."
  (when clsfile--input-timer
    (cancel-timer clsfile--input-timer)
    (setq clsfile--input-timer nil))
  (let ((file (getenv "CLSFILE_SESSION_INPUT")))
    (when (and file (not (string= file "")) clsfile--session-opened)
      (condition-case err
          (let ((coding-system-for-write 'utf-8-unix)
                (create-lockfiles nil)
                (write-region-inhibit-fsync t))
            (write-region (format "{\"typed\":%d,\"pasted\":%d,\"moved\":%d,\"largestPaste\":%d}\n"
                                  (aref clsfile--session-counts 0) (aref clsfile--session-counts 1)
                                  (aref clsfile--session-counts 4) (aref clsfile--session-counts 2))
                          nil file nil 'silent))
        (error (clsfile--remember (format "CLSFILE_SESSION_INPUT: %s" (error-message-string err))))))))

(defun clsfile--self-insert ()
  "Count what the key just inserted as typed (`post-self-insert-hook').
The insertion is the last text change: RET inserts a newline, a prefix
argument several characters."
  (when clsfile--buffer-counts
    (cl-incf (aref clsfile--buffer-counts 0) clsfile--inserted)
    (clsfile--input-changed)))

(defun clsfile--trimmed (text)
  "TEXT without the line breaks at its ends."
  (replace-regexp-in-string "\\`\n+\\|\n+\\'" "" text))

(defun clsfile--own-p (text)
  "Non-nil when TEXT, just pasted into the current buffer, is its file's own.
That is: killed or copied in it in this run of Emacs, or held by it before the
paste (it now holds it twice)."
  (let ((text (clsfile--trimmed text)) (path (clsfile--path)))
    (and (not (string= text ""))
         (or (member (cons path text) clsfile--own)
             (save-excursion
               (save-restriction
                 (widen)
                 (goto-char (point-min))
                 (and (search-forward text nil t) (search-forward text nil t))))))))

(defun clsfile--killed (&rest _)
  "Keep the newest kill as the current buffer's file's own text.
After `kill-region' and `copy-region-as-kill', through which `kill-line',
`kill-word' and `kill-ring-save' kill and copy."
  (let ((path (clsfile--path)) (text (and kill-ring (clsfile--trimmed (substring-no-properties (car kill-ring))))))
    (when (and path text (not (string= text "")))
      (push (cons path text) clsfile--own)
      (when (> (length clsfile--own) 20) (setcdr (nthcdr 19 clsfile--own) nil)))))

(defun clsfile--pasted (text)
  "Count TEXT, pasted into the current buffer at once.
It is moved when it is the file's own text (`clsfile--own-p'), else pasted."
  (let ((chars (length text)))
    (when (and clsfile--buffer-counts (> chars 0))
      (if (clsfile--own-p text)
          (cl-incf (aref clsfile--buffer-counts 4) chars)
        (cl-incf (aref clsfile--buffer-counts 1) chars)
        (aset clsfile--buffer-counts 2 (max chars (aref clsfile--buffer-counts 2)))
        (aset clsfile--buffer-counts 3 (max chars (aref clsfile--buffer-counts 3))))
      (clsfile--input-changed))))

(defun clsfile--yank (insert &rest args)
  "Call INSERT with ARGS, and count what it inserted as one paste.
Around `insert-for-yank', which `yank', `yank-pop', `clipboard-yank',
`mouse-yank-primary', `insert-register' and `xterm-paste' (a terminal's
bracketed paste) insert with."
  (let ((size (buffer-size)))
    (prog1 (apply insert args)
      (let ((grown (- (buffer-size) size)))
        (when (> grown 0)
          (clsfile--pasted (buffer-substring-no-properties (max (point-min) (- (point) grown)) (point))))))))

(defun clsfile--drop (window _action text)
  "Count TEXT, dropped on WINDOW, as a paste (before `dnd-insert-text')."
  (when (and (window-live-p window) (stringp text))
    (with-current-buffer (window-buffer window)
      (clsfile--pasted text))))

(defun clsfile--while-saving (save &rest args)
  "Call SAVE with ARGS, noting that a save runs.
Around `basic-save-buffer': the final newline is inserted before any hook runs."
  (let ((clsfile--saving t))
    (apply save args)))

(defun clsfile--after-save ()
  "Send save for the current buffer; a file saved under a new name is opened first."
  (let ((path (clsfile--path)))
    (when path
      (clsfile--open)
      (apply #'clsfile--send "save" path (clsfile--settings)))))

(defun clsfile--view (&optional window)
  "Send the lines WINDOW shows when they changed, throttled per file."
  (let* ((window (or window (selected-window)))
         (buffer (and (window-live-p window) (window-buffer window)))
         (path (and buffer (clsfile--path buffer))))
    (when (and path (gethash path clsfile--opened))
      (with-current-buffer buffer
        (save-restriction
          (widen)
          (let* ((total (max 1 (count-lines (point-min) (point-max))))
                 (first (min total (max 1 (line-number-at-pos (window-start window)))))
                 (end (or (window-end window t) (point-max)))
                 (last (min total (max first (line-number-at-pos (max (point-min) (1- end))))))
                 (key (format "%d-%d/%d" first last total))
                 (wait (- clsfile-view-interval
                          (- (float-time) (gethash path clsfile--last-view -1.0e9)))))
            (cond
             ((equal key (gethash path clsfile--sent-view)))
             ((> wait 0)
              (unless (gethash path clsfile--view-timers)
                (puthash path
                         (run-at-time wait nil
                                      (lambda ()
                                        (remhash path clsfile--view-timers)
                                        (when (window-live-p window) (clsfile--view window))))
                         clsfile--view-timers)))
             (t
              (puthash path (float-time) clsfile--last-view)
              (puthash path key clsfile--sent-view)
              (clsfile--send "view" path "--view" (format "%d-%d" first last)
                             "--total-lines" (number-to-string total))))))))))

(defun clsfile--window-scroll (window start)
  "Send the view of WINDOW after it scrolled to START.
Redisplay scrolls after the command, so the next command compares with START."
  (when (eq window (car clsfile--position))
    (setcar (nthcdr 3 clsfile--position) start))
  (clsfile--view window))

(defun clsfile--post-command ()
  "Note a moved cursor or scrolled window as input, then send the view.
Only in the buffer the window showed before the command: a switch or a save is
not input."
  (let* ((window (selected-window))
         (buffer (window-buffer window))
         (path (clsfile--path buffer))
         (position (list window buffer (window-point window) (window-start window))))
    (when (and path (gethash path clsfile--opened)
               (not clsfile--changed)
               (eq window (nth 0 clsfile--position))
               (eq buffer (nth 1 clsfile--position))
               (not (equal position clsfile--position)))
      (clsfile--input path))
    (setq clsfile--position position
          clsfile--changed nil
          clsfile--inserted 1)
    (clsfile--view window)))

(defun clsfile--forget (path)
  "Drop what is known of PATH."
  (dolist (table (list clsfile--opened clsfile--last-edit clsfile--last-view clsfile--sent-view
                       clsfile--last-sent clsfile--last-input clsfile--quiet clsfile--counts
                       clsfile--sent))
    (remhash path table))
  (dolist (timers (list clsfile--view-timers clsfile--edit-timers))
    (let ((timer (gethash path timers)))
      (when timer (cancel-timer timer))
      (remhash path timers))))

(defun clsfile--run-now (args)
  "Run the clsfile call ARGS and wait for it."
  (let ((default-directory "/"))
    (condition-case err
        (apply #'call-process (car args) nil nil nil (cdr args))
      (error (clsfile--remember (error-message-string err))))))

(defun clsfile--close (path)
  "Send close for PATH if it has a session, with the current buffer's settings.
Its --input-at and --opened-at let clsfile leave out the idle time before it."
  (let ((opened (and path (gethash path clsfile--opened))))
    (when opened
      (let ((extra (append (list "--opened-at" (clsfile--time opened)) (clsfile--settings))))
        (when (clsfile--quiet-p path)
          (clsfile--write-input))
        (if (and clsfile--leaving (not (clsfile--quiet-p path)))
            (clsfile--run-now (clsfile--figures
                               (clsfile--entry "close" path (clsfile--with-input "close" path extra))))
          (apply #'clsfile--send "close" path extra)))
      (clsfile--forget path))))

(defun clsfile--kill-buffer ()
  "Send close for the killed buffer's file."
  (when clsfile--session-path
    (clsfile--close clsfile--session-path)
    (setq clsfile--session-path nil)))

(defun clsfile--buffer (path)
  "The buffer with PATH's session, or nil."
  (cl-find-if (lambda (buffer) (equal (buffer-local-value 'clsfile--session-path buffer) path))
              (buffer-list)))

(defun clsfile--kill-emacs ()
  "Finish the calls synchronously on exit.
Let the running call end (up to 2 s), then run what waits and the closes."
  (let ((deadline (+ (float-time) 2)))
    (while (and clsfile--process (process-live-p clsfile--process) (< (float-time) deadline))
      (accept-process-output clsfile--process 0.05)))
  (setq clsfile--leaving t)
  (clsfile--write-input)
  (let ((waiting clsfile--queue))
    (setq clsfile--queue nil)
    (when (clsfile--usable)
      (dolist (entry waiting) (clsfile--run-now (clsfile--figures entry)))
      (let (paths)
        (maphash (lambda (path _) (push path paths)) clsfile--opened)
        (dolist (path paths)
          ;; In the file's buffer, for its own --target-words and --reading.
          (let ((buffer (clsfile--buffer path)))
            (if buffer
                (with-current-buffer buffer (clsfile--close path))
              (with-temp-buffer (clsfile--close path)))))))))

(defun clsfile-errors ()
  "Show what clsfile reported on standard error."
  (interactive)
  (if clsfile--errors
      (with-help-window "*clsfile errors*"
        (princ (mapconcat #'identity (reverse clsfile--errors) "\n")))
    (message "clsfile: no errors")))

;;;###autoload
(define-minor-mode clsfile-mode
  "Record editing sessions of real files with `clsfile hook'."
  :global t
  :group 'clsfile
  :lighter nil
  (if clsfile-mode
      (progn
        (setq clsfile--leaving nil)
        (advice-add 'basic-save-buffer :around #'clsfile--while-saving)
        (add-hook 'find-file-hook #'clsfile--open)
        (add-hook 'after-change-functions #'clsfile--after-change)
        (add-hook 'post-self-insert-hook #'clsfile--self-insert)
        (advice-add 'insert-for-yank :around #'clsfile--yank)
        (advice-add 'kill-region :after #'clsfile--killed)
        (advice-add 'copy-region-as-kill :after #'clsfile--killed)
        (advice-add 'dnd-insert-text :before #'clsfile--drop)
        (add-hook 'before-save-hook #'clsfile--before-save)
        (add-hook 'after-save-hook #'clsfile--after-save)
        (add-hook 'window-scroll-functions #'clsfile--window-scroll)
        (add-hook 'post-command-hook #'clsfile--post-command)
        (add-hook 'kill-buffer-hook #'clsfile--kill-buffer)
        (add-hook 'kill-emacs-hook #'clsfile--kill-emacs)
        ;; Files visited before the mode was turned on.
        (dolist (buffer (buffer-list))
          (with-current-buffer buffer (clsfile--open))))
    (advice-remove 'basic-save-buffer #'clsfile--while-saving)
    (remove-hook 'find-file-hook #'clsfile--open)
    (remove-hook 'after-change-functions #'clsfile--after-change)
    (remove-hook 'post-self-insert-hook #'clsfile--self-insert)
    (advice-remove 'insert-for-yank #'clsfile--yank)
    (advice-remove 'kill-region #'clsfile--killed)
    (advice-remove 'copy-region-as-kill #'clsfile--killed)
    (advice-remove 'dnd-insert-text #'clsfile--drop)
    (remove-hook 'before-save-hook #'clsfile--before-save)
    (remove-hook 'after-save-hook #'clsfile--after-save)
    (remove-hook 'window-scroll-functions #'clsfile--window-scroll)
    (remove-hook 'post-command-hook #'clsfile--post-command)
    (remove-hook 'kill-buffer-hook #'clsfile--kill-buffer)
    (remove-hook 'kill-emacs-hook #'clsfile--kill-emacs)))

(provide 'clsfile)

;;; clsfile.el ends here
