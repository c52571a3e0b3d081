;;; clsfile.el --- Record editing sessions with clsfile  -*- lexical-binding: t; -*-

;; Author: clsfile contributors
;; Version: 0.1.0
;; Package-Requires: ((emacs "26.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/clsfile/clsfile

;; This file is not part of GNU Emacs.

;;; Commentary:

;; `clsfile-mode' is a global minor mode that tells `clsfile hook' what you do
;; to real files, so that clsfile records your time, progress and word count:
;;
;;   open   when a file is visited (`find-file-hook')
;;   edit   when the text changes (`after-change-functions'), at most every
;;          `clsfile-edit-interval' seconds per file
;;   save   after every save (`after-save-hook')
;;   view   the visible lines (`window-scroll-functions', `post-command-hook'),
;;          at most every `clsfile-view-interval' seconds per file
;;   close  when the buffer is killed (`kill-buffer-hook') and for every file
;;          still open when Emacs exits (`kill-emacs-hook')
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
  "Seconds between two edit events for one file."
  :type 'number)

(defcustom clsfile-view-interval 10
  "Seconds between two view events for one file."
  :type 'number)

(defvar clsfile--queue nil "Argument lists waiting for a process, oldest first.")
(defvar clsfile--process nil "The running clsfile process, if any.")
(defvar clsfile--opened (make-hash-table :test 'equal) "Files with a session.")
(defvar clsfile--last-edit (make-hash-table :test 'equal) "File -> time of the last edit event.")
(defvar clsfile--last-view (make-hash-table :test 'equal) "File -> time of the last view event.")
(defvar clsfile--sent-view (make-hash-table :test 'equal) "File -> the last view sent.")
(defvar clsfile--view-timers (make-hash-table :test 'equal) "File -> pending view timer.")
(defvar clsfile--errors nil "What clsfile wrote on standard error, newest first.")
(defvar clsfile--warned nil "Non-nil once the missing executable was reported.")
(defvar clsfile--leaving nil "Non-nil while Emacs exits.")

(defun clsfile--usable ()
  "Return non-nil when events may be sent; say once when clsfile cannot run."
  (or (executable-find clsfile-command)
      (progn
        (unless clsfile--warned
          (setq clsfile--warned t)
          (message "clsfile: %s is not executable; set `clsfile-command'. Sessions are not recorded."
                   clsfile-command))
        nil)))

(defun clsfile--path (&optional buffer)
  "The absolute file name of BUFFER when it visits a real file, else nil."
  (let ((name (buffer-file-name (or buffer (current-buffer)))))
    (when (and name (not (file-remote-p name)))
      (let ((path (expand-file-name name)))
        (when (file-regular-p path) path)))))

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

(defun clsfile--send (event path &rest extra)
  "Queue EVENT for PATH; a pending edit or view of PATH is replaced."
  (when (clsfile--usable)
    (when (member event '("edit" "view"))
      (setq clsfile--queue
            (cl-remove-if (lambda (args) (and (equal (nth 2 args) event) (equal (nth 3 args) path)))
                          clsfile--queue)))
    (setq clsfile--queue
          (append clsfile--queue (list (apply #'clsfile--arguments event path extra))))
    (clsfile--next)))

(defun clsfile--next ()
  "Start the oldest queued call unless one runs."
  (unless (or clsfile--leaving
              (and clsfile--process (process-live-p clsfile--process)))
    (setq clsfile--process nil)
    (let ((args (pop clsfile--queue)))
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
  "Send open for the current buffer the first time."
  (let ((path (clsfile--path)))
    (when (and path (not (gethash path clsfile--opened)))
      (puthash path t clsfile--opened)
      (clsfile--send "open" path))))

(defun clsfile--after-change (&rest _)
  "Send edit for the current buffer, at most every `clsfile-edit-interval' seconds."
  (let ((path (clsfile--path)))
    (when path
      (if (not (gethash path clsfile--opened))
          (clsfile--open)
        (let ((now (float-time)))
          (when (>= (- now (gethash path clsfile--last-edit -1.0e9)) clsfile-edit-interval)
            (puthash path now clsfile--last-edit)
            (clsfile--send "edit" path)))))))

(defun clsfile--after-save ()
  "Send save for the current buffer; a new file's session starts here."
  (let ((path (clsfile--path)))
    (when path
      (puthash path t clsfile--opened)
      (clsfile--send "save" path))))

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

(defun clsfile--window-scroll (window _start)
  "Send the view of WINDOW after it scrolled."
  (clsfile--view window))

(defun clsfile--post-command ()
  "Send the view of the selected window (a moved cursor may scroll it)."
  (clsfile--view (selected-window)))

(defun clsfile--forget (path)
  "Drop what is known of PATH."
  (dolist (table (list clsfile--opened clsfile--last-edit clsfile--last-view clsfile--sent-view))
    (remhash path table))
  (let ((timer (gethash path clsfile--view-timers)))
    (when timer (cancel-timer timer))
    (remhash path clsfile--view-timers)))

(defun clsfile--run-now (args)
  "Run the clsfile call ARGS and wait for it."
  (let ((default-directory "/"))
    (condition-case err
        (apply #'call-process (car args) nil nil nil (cdr args))
      (error (clsfile--remember (error-message-string err))))))

(defun clsfile--close (path)
  "Send close for PATH if it has a session."
  (when (and path (gethash path clsfile--opened))
    (clsfile--forget path)
    (if clsfile--leaving
        (clsfile--run-now (clsfile--arguments "close" path))
      (clsfile--send "close" path))))

(defun clsfile--kill-buffer ()
  "Send close for the killed buffer's file."
  (let ((name (buffer-file-name)))
    (when name (clsfile--close (expand-file-name name)))))

(defun clsfile--kill-emacs ()
  "Finish the calls synchronously on exit.
Let the running call end (up to 2 s), then run what waits and the closes."
  (let ((deadline (+ (float-time) 2)))
    (while (and clsfile--process (process-live-p clsfile--process) (< (float-time) deadline))
      (accept-process-output clsfile--process 0.05)))
  (setq clsfile--leaving t)
  (let ((waiting clsfile--queue))
    (setq clsfile--queue nil)
    (when (clsfile--usable)
      (mapc #'clsfile--run-now waiting)
      (let (paths)
        (maphash (lambda (path _) (push path paths)) clsfile--opened)
        (mapc #'clsfile--close paths)))))

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
        (add-hook 'find-file-hook #'clsfile--open)
        (add-hook 'after-change-functions #'clsfile--after-change)
        (add-hook 'after-save-hook #'clsfile--after-save)
        (add-hook 'window-scroll-functions #'clsfile--window-scroll)
        (add-hook 'post-command-hook #'clsfile--post-command)
        (add-hook 'kill-buffer-hook #'clsfile--kill-buffer)
        (add-hook 'kill-emacs-hook #'clsfile--kill-emacs)
        ;; Files visited before the mode was turned on.
        (dolist (buffer (buffer-list))
          (with-current-buffer buffer (clsfile--open))))
    (remove-hook 'find-file-hook #'clsfile--open)
    (remove-hook 'after-change-functions #'clsfile--after-change)
    (remove-hook 'after-save-hook #'clsfile--after-save)
    (remove-hook 'window-scroll-functions #'clsfile--window-scroll)
    (remove-hook 'post-command-hook #'clsfile--post-command)
    (remove-hook 'kill-buffer-hook #'clsfile--kill-buffer)
    (remove-hook 'kill-emacs-hook #'clsfile--kill-emacs)))

(provide 'clsfile)

;;; clsfile.el ends here
