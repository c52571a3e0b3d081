" clsfile.vim - record editing sessions of real files with `clsfile hook`.
"
" Events: open (a file buffer is entered the first time, also a new file that
" does not exist yet), edit (input: typing, cursor movement, scrolling; at
" most one per edit interval while it goes on, and one more a short pause
" after it stops), save (every write), view (visible lines, at most every
" g:clsfile_view_interval seconds per file), close (buffer unloaded or
" deleted, and every open file when Vim exits).
"
" Every event but open carries --input-at, the time of the latest input in
" the buffer (a write too, unless it quits or closes the buffer), so clsfile
" counts the work when it happened, not when the hook ran; close carries
" --opened-at, when the open was sent. Edit, save and close carry the
" characters typed and pasted in the file since the figures last sent for
" its open (--typed, --pasted, --largest-paste; see s:Typed, s:Count and
" s:Figures), so a Vim that is killed loses only those since its last event.
" For $CLSFILE_SESSION_FILE the totals are written as JSON to
" $CLSFILE_SESSION_INPUT instead, for `clsfile open`.
"
" Calls run as asynchronous jobs, one at a time in order, so Vim never waits;
" only the final closes on exit are synchronous so that they are not lost.
" Only views are sent for the file that `clsfile open` runs Vim on
" ($CLSFILE_SESSION_FILE): clsfile times that session itself.
"
" Settings (read at each event, so they may be set after this file loads):
"   g:clsfile_command        the clsfile executable ('clsfile', found on PATH)
"   g:clsfile_store          the store file (default: $CLSFILE_STORE or clsfile's own)
"   g:clsfile_edit_interval  seconds between edit events per file (120; at
"                            most half of $CLSFILE_IDLE_TIMEOUT, default 300)
"   g:clsfile_view_interval  seconds between view events per file (10)
"   g:clsfile_target_words   progress is measured toward this many words (unset)
"   g:clsfile_reading        1: the file is being read, progress is lines viewed (0)
"   g:clsfile_enabled        0 turns recording off (1)
" b:clsfile_target_words and b:clsfile_reading override the global ones.
" Commands: :ClsfileErrors shows what clsfile reported on standard error.

if exists('g:loaded_clsfile') || !has('job') || !has('timers')
  finish
endif
let g:loaded_clsfile = 1

let s:cpo_save = &cpo
set cpo&vim

let s:queue = []        " events waiting for a job: {args, counts, sent} (see s:Figures)
let s:job = v:null      " the running job, if any
let s:opened = {}       " absolute path -> time its open was sent
let s:bufs = {}         " absolute path -> its buffer, for settings at exit
let s:input = {}        " absolute path -> time of the latest input
let s:last_sent = {}    " absolute path -> time of the last event sent
let s:last_edit = {}    " absolute path -> time of the last edit event
let s:trail_timer = {}  " absolute path -> timer id of the trailing edit
let s:last_view = {}    " absolute path -> time of the last view event
let s:sent_view = {}    " absolute path -> the last view sent, 'first-last/total'
let s:view_timer = {}   " absolute path -> timer id of a pending view
let s:saving = []       " [path, buffer, time] of writes whose save waits
let s:errors = []       " the last lines clsfile wrote on standard error
let s:counts = {}       " absolute path -> its input since its open: typed, pasted,
                        " moved, largestPaste, and unsent, the largest paste not sent yet
let s:sent = {}         " absolute path -> the figures sent since its open: typed, pasted, moved
let s:own = []          " [path, text] of the last yanks and deletes, newest last:
                        " text a put of which is the file's own, moved, not pasted
let s:session_counts = {'typed': 0, 'pasted': 0, 'moved': 0, 'largestPaste': 0, 'unsent': 0}
                        " the input in $CLSFILE_SESSION_FILE over the whole run of Vim
let s:session_opened = 0 " whether $CLSFILE_SESSION_FILE was opened, so its totals are Vim's to tell
let s:input_timer = -1  " timer of the pending write of $CLSFILE_SESSION_INPUT
let s:warned = 0
let s:leaving = 0

" clsfile wants Unix time; reltime() is wall-clock time on most builds, but
" where it is a monotonic clock it is shifted by the difference to localtime().
let s:clock_offset = localtime() - reltimefloat(reltime())
let s:clock_offset = abs(s:clock_offset) < 5 ? 0.0 : s:clock_offset

function! s:Now() abort
  return reltimefloat(reltime()) + s:clock_offset
endfunction

function! s:Stamp(time) abort
  return printf('%.3f', a:time)
endfunction

function! s:Command() abort
  return get(g:, 'clsfile_command', 'clsfile')
endfunction

" The idle timeout clsfile uses, which bounds the edit interval and pause.
function! s:Idle() abort
  let idle = str2float($CLSFILE_IDLE_TIMEOUT)
  return idle > 0 ? idle : 300.0
endfunction

" min() takes Numbers only.
function! s:Less(a, b) abort
  return a:a < a:b ? a:a : a:b
endfunction

function! s:EditInterval() abort
  return s:Less(get(g:, 'clsfile_edit_interval', 120) * 1.0, s:Idle() / 2)
endfunction

function! s:Pause() abort
  return s:Less(3.0, s:Idle() / 4)
endfunction

" True when events may be sent; says once when clsfile cannot be run.
function! s:Usable() abort
  if !get(g:, 'clsfile_enabled', 1)
    return 0
  endif
  if executable(s:Command())
    return 1
  endif
  if !s:warned
    let s:warned = 1
    call s:Remember('"' . s:Command() . '" is not executable: set g:clsfile_command')
    " A message while Vim starts, or one wider than the screen, would raise
    " the Press ENTER prompt: show one short line once Vim waits for keys.
    if v:vim_did_enter
      call timer_start(0, {-> s:Warn()})
    else
      autocmd clsfile VimEnter * ++once call timer_start(0, {-> s:Warn()})
    endif
  endif
  return 0
endfunction

function! s:Warn() abort
  let text = 'clsfile: not executable, nothing recorded (:ClsfileErrors)'
  echohl WarningMsg
  echomsg strpart(text, 0, max([&columns - 12, 10]))
  echohl None
endfunction

" True for the file `clsfile open` runs Vim on: that session is clsfile's.
function! s:IsSessionFile(path) abort
  if $CLSFILE_SESSION_FILE ==# ''
    return 0
  endif
  " resolve() leaves a missing file's folder alone: resolve the folder.
  let real = getftype(a:path) ==# '' ?
        \ resolve(fnamemodify(a:path, ':h')) . '/' . fnamemodify(a:path, ':t') : resolve(a:path)
  return real ==# $CLSFILE_SESSION_FILE || real ==# resolve($CLSFILE_SESSION_FILE)
endfunction

" The absolute path of a buffer that is a real file, else ''. A file that
" does not exist yet counts when its folder exists.
function! s:Path(buf) abort
  if a:buf < 1 || !bufexists(a:buf) || getbufvar(a:buf, '&buftype') !=# ''
    return ''
  endif
  let name = bufname(a:buf)
  if name ==# '' || name =~# '^\a\a\+:'
    return ''
  endif
  let path = fnamemodify(name, ':p')
  if !filereadable(path) && (getftype(path) !=# '' || !isdirectory(fnamemodify(path, ':h')))
    return ''
  endif
  return path
endfunction

" --target-words and --reading, from the buffer's settings or the global ones.
function! s:Goal(buf) abort
  let words = getbufvar(a:buf, 'clsfile_target_words', get(g:, 'clsfile_target_words', 0))
  let words = type(words) == v:t_number || type(words) == v:t_string ? str2nr(words) : 0
  let extra = words > 0 ? ['--target-words', string(words)] : []
  if getbufvar(a:buf, 'clsfile_reading', get(g:, 'clsfile_reading', 0))
    let extra += ['--reading']
  endif
  return extra
endfunction

function! s:InputAt(path) abort
  return has_key(s:input, a:path) ? ['--input-at', s:Stamp(s:input[a:path])] : []
endfunction

function! s:Arguments(event, path, extra) abort
  let args = [s:Command(), 'hook', a:event, a:path, '--editor', 'vim'] + a:extra
  let store = get(g:, 'clsfile_store', '')
  if store !=# ''
    let args += ['--store', fnamemodify(store, ':p')]
  endif
  return args
endfunction

" Queues an event; a pending event of the same kind for the same file is
" replaced (the newer one carries the newer --input-at).
function! s:Send(event, path, extra) abort
  " `clsfile open` times its file itself; only what the window shows (for
  " reading progress) is the plugin's to tell.
  if !s:Usable() || (a:event !=# 'view' && s:IsSessionFile(a:path))
    return
  endif
  let s:last_sent[a:path] = s:Now()
  let args = s:Arguments(a:event, a:path, a:extra)
  if a:event ==# 'edit' || a:event ==# 'view'
    call filter(s:queue, {_, queued -> !(queued.args[2] ==# a:event && queued.args[3] ==# a:path)})
  endif
  call add(s:queue, s:Entry(args, a:event ==# 'view' ? '' : a:path))
  " Started once the autocommands of this change are done, so that its
  " figures are settled (s:Count may move typed characters to pasted).
  call timer_start(0, {-> s:Next()})
endfunction

" An event to run, with the counts its figures come from (path '': none).
function! s:Entry(args, path) abort
  return {'args': a:args, 'counts': get(s:counts, a:path, {}), 'sent': get(s:sent, a:path, {})}
endfunction

" The figures an event carries, taken when it starts: the characters typed
" and pasted since the figures last sent for the file's open, and the
" largest of those pastes. An edit or a save with nothing new carries none;
" a close always does (the rest, zeros included). A queued edit replaced by
" a newer one loses nothing: the figures are counted when one starts.
function! s:Figures(entry) abort
  let [c, sent] = [a:entry.counts, a:entry.sent]
  " An open (or a view) carries none: clsfile refuses figures with it.
  if empty(c) || empty(sent) || index(['edit', 'save', 'close'], a:entry.args[2]) < 0
    return []
  endif
  let typed = max([0, c.typed - sent.typed])
  let pasted = max([0, c.pasted - sent.pasted])
  let moved = max([0, c.moved - sent.moved])
  if typed == 0 && pasted == 0 && moved == 0 && a:entry.args[2] !=# 'close'
    return []
  endif
  let largest = min([c.unsent, pasted])
  let [sent.typed, sent.pasted, sent.moved, c.unsent] = [sent.typed + typed, sent.pasted + pasted, sent.moved + moved, 0]
  return ['--typed', string(typed), '--pasted', string(pasted), '--moved', string(moved), '--largest-paste', string(largest)]
endfunction

function! s:Next() abort
  if s:job isnot v:null && job_status(s:job) ==# 'run'
    return
  endif
  let s:job = v:null
  if empty(s:queue) || s:leaving
    return
  endif
  let entry = remove(s:queue, 0)
  let args = entry.args + s:Figures(entry)
  try
    let s:job = job_start(args, {
          \ 'in_io': 'null', 'out_io': 'null', 'err_io': 'pipe',
          \ 'err_cb': function('s:OnError'),
          \ 'exit_cb': function('s:OnExit'),
          \ 'stoponexit': ''})
  catch
    call s:Remember(v:exception)
    let s:job = v:null
  endtry
  if s:job isnot v:null && job_status(s:job) ==# 'fail'
    call s:Remember('could not start ' . args[0])
    let s:job = v:null
    call timer_start(0, {-> s:Next()})
  endif
endfunction

function! s:OnError(channel, line) abort
  call s:Remember(a:line)
endfunction

function! s:OnExit(job, status) abort
  if s:job is a:job
    let s:job = v:null
  endif
  call s:Next()
endfunction

function! s:Remember(line) abort
  call add(s:errors, strftime('%H:%M:%S ') . a:line)
  if len(s:errors) > 50
    call remove(s:errors, 0)
  endif
endfunction

function! s:Open(buf) abort
  let path = s:Path(a:buf)
  if path ==# '' || has_key(s:opened, path)
    return
  endif
  let s:opened[path] = s:Now()
  let s:bufs[path] = a:buf
  " Input counts from here: what came before belongs to no session.
  call setbufvar(a:buf, 'clsfile_tick', getbufvar(a:buf, 'changedtick'))
  " `clsfile open` counts the session file's input over the whole run of Vim,
  " through buffer reloads; any other file's from this open to its close.
  let session = s:IsSessionFile(path)
  let s:session_opened = s:session_opened || session
  let s:counts[path] = session ? s:session_counts : {'typed': 0, 'pasted': 0, 'moved': 0, 'largestPaste': 0, 'unsent': 0}
  " Written at once: `clsfile open` then knows from the start that Vim counts.
  if session
    call s:WriteInput()
  endif
  let s:sent[path] = {'typed': 0, 'pasted': 0, 'moved': 0}
  call setbufvar(a:buf, 'clsfile_state', {'counts': s:counts[path],
        \ 'session': session, 'size': -1, 'change': 0, 'typed': ''})
  if a:buf == bufnr('%')
    call s:Resync()
  endif
  call s:Send('open', path, s:Goal(a:buf))
  call s:View(a:buf)
endfunction

" A text change: TextChanged also fires when nothing changed (after a
" buffer is read), so only a new b:changedtick counts.
function! s:Changed(buf) abort
  let tick = getbufvar(a:buf, 'changedtick')
  if tick == getbufvar(a:buf, 'clsfile_tick', -1)
    return
  endif
  call setbufvar(a:buf, 'clsfile_tick', tick)
  call s:Input(a:buf)
endfunction

" A cursor movement or scroll: CursorMoved also fires after a buffer is
" entered or Vim starts, so only a change of the window's own position
" in the same buffer counts.
function! s:Moved(buf) abort
  let here = [a:buf, line('.'), col('.'), line('w0'), winsaveview().leftcol]
  let before = get(w:, 'clsfile_at', [])
  let w:clsfile_at = here
  if !empty(before) && before[0] == a:buf && before !=# here
    call s:Input(a:buf)
  endif
  call s:View(a:buf)
endfunction

function! s:Settle() abort
  let w:clsfile_at = [bufnr('%'), line('.'), col('.'), line('w0'), winsaveview().leftcol]
endfunction

" Typed and pasted characters. Vim says neither, so they are told apart by
" where a change came from:
" - typed: each character InsertCharPre sees (keys, input-method commits,
"   digraphs, repeats with .), and in Insert mode text that comes without it
"   but is no paste: a line break and indent, one character (CTRL-Y, CTRL-E),
"   a completion;
" - pasted: in Insert mode, two or more characters that arrive at once without
"   InsertCharPre (a bracketed paste from the terminal, CTRL-R CTRL-R), or
"   arrive at once through it and match a register (CTRL-R {register} feeds
"   the register as if typed); in Normal mode a new change (not an undo or a
"   redo) that only inserts text: p, P, gp, ]p, "+p, :put, :read, :copy, and
"   a bracketed paste.
" Each keystroke costs a few dictionary updates; the text is only read when
" more arrived than was typed.

" The buffer's size in bytes: cheap, unlike its characters. line2byte() says
" -1 for an empty buffer, which has one line and its line break.
function! s:Size() abort
  let bytes = line2byte(line('$') + 1)
  return bytes < 0 ? 1 : bytes - 1
endfunction

" Starts counting the current buffer's changes from its text as it is now.
function! s:Resync() abort
  let state = get(b:, 'clsfile_state', {})
  if !empty(state)
    let state.size = s:Size()
    let state.change = changenr()
    let state.typed = ''
  endif
endfunction

" InsertCharPre: a character typed (or fed as if typed) in Insert mode.
function! s:Typed() abort
  let state = get(b:, 'clsfile_state', {})
  if !empty(state)
    let state.counts.typed += strchars(v:char)
    let state.typed .= v:char
  endif
endfunction

" TextChanged, TextChangedI, TextChangedP: sorts what the change inserted
" beyond the typed characters.
function! s:Count(event) abort
  let state = get(b:, 'clsfile_state', {})
  if empty(state)
    return
  endif
  let size = s:Size()
  let change = changenr()
  let grown = size - state.size
  let typed = state.typed
  " Undo and redo go back to changes that already had a number.
  let new = change > state.change
  let known = state.size >= 0
  let [state.size, state.change, state.typed] = [size, max([change, state.change]), '']
  if state.session
    call s:WriteInputLater()
  endif
  if !known || grown <= 0 && len(typed) < 2
    return
  endif
  let counts = state.counts
  if a:event ==# 'TextChanged'
    if grown > 0 && new && typed ==# ''
      let text = s:Inserted(grown)
      if text !=# ''
        call s:Pasted(counts, text)
      endif
    endif
  elseif strchars(typed) > 1 && s:InRegister(typed)
    let counts.typed -= strchars(typed)
    call s:Pasted(counts, grown > len(typed) ? s:BeforeCursor(grown) : typed)
  elseif grown > len(typed)
    let text = s:BeforeCursor(grown)
    " Never below zero: clsfile refuses a negative count.
    let more = max([0, strchars(text) - strchars(typed)])
    if typed ==# '' && more > 1 && text =~# '[^ \t\n]' && a:event ==# 'TextChangedI' && mode(1) !~# '^i[cx]'
      call s:Pasted(counts, text)
    else
      let counts.typed += more
    endif
  endif
endfunction

" A paste of text: moved when it is the file's own (s:IsOwn), else pasted.
function! s:Pasted(counts, text) abort
  let chars = strchars(a:text)
  if s:IsOwn(a:text)
    let a:counts.moved += chars
    return
  endif
  let a:counts.pasted += chars
  let a:counts.largestPaste = max([a:counts.largestPaste, chars])
  let a:counts.unsent = max([a:counts.unsent, chars])
endfunction

" True when pasted text is the current file's own: yanked or deleted in it
" in this run of Vim, or held by it before the paste (it now holds it twice).
" Line breaks at the ends do not count: a put of lines ends with one.
function! s:IsOwn(text) abort
  let text = substitute(a:text, '^\n\+\|\n\+$', '', 'g')
  if text ==# ''
    return 0
  endif
  let path = s:Path(bufnr('%'))
  for [from, own] in s:own
    if from ==# path && own ==# text
      return 1
    endif
  endfor
  return count(join(getline(1, '$'), "\n"), text) >= 2
endfunction

" TextYankPost: a yank or delete in a file keeps its text as the file's own.
function! s:Yanked() abort
  let path = s:Path(bufnr('%'))
  if path ==# '' || empty(v:event.regcontents)
    return
  endif
  let text = substitute(join(v:event.regcontents, "\n"), '^\n\+\|\n\+$', '', 'g')
  if text !=# ''
    call add(s:own, [path, text])
    if len(s:own) > 20
      call remove(s:own, 0)
    endif
  endif
endfunction

" True when text is a register's content without its line breaks (Insert
" mode CTRL-R feeds those as Enter, which InsertCharPre does not see). The
" clipboard registers are left out: reading them can wait for the clipboard.
function! s:InRegister(text) abort
  let names = split('0123456789abcdefghijklmnopqrstuvwxyz-', '\zs')
  if &clipboard !~# 'unnamed'
    call add(names, '"')
  endif
  for name in names
    if substitute(getreg(name), "\n", '', 'g') ==# a:text
      return 1
    endif
  endfor
  return 0
endfunction

" The `bytes` bytes before the cursor: what Insert mode just inserted.
function! s:BeforeCursor(bytes) abort
  let lnum = line('.')
  let text = strpart(getline(lnum), 0, col('.') - 1)
  let first = lnum
  let missing = a:bytes - len(text)
  while missing > 0 && first > 1
    let first -= 1
    let missing -= len(getline(first)) + 1
  endwhile
  if first < lnum
    let text = join(getline(first, lnum - 1), "\n") . "\n" . text
  endif
  return strpart(text, len(text) - a:bytes)
endfunction

" The text a Normal-mode command inserted, from the '[ and '] marks, when
" it is `bytes` bytes long, else '' (a change that also replaced text, like
" :s or >>). A put marks its whole lines, or its text up to the first byte
" of its last character; a bracketed paste up to the byte after its text.
function! s:Inserted(bytes) abort
  let [first, start] = getpos("'[")[1:2]
  let [last, end] = getpos("']")[1:2]
  if first < 1 || last < first || last - first > a:bytes
    return ''
  endif
  let lines = getline(first, last)
  let whole = join(lines, "\n") . "\n"
  if start <= 1 && len(whole) == a:bytes
    return whole
  endif
  let lastline = lines[-1]
  let lines[-1] = strpart(lastline, 0, end - 1)
  let lines[0] = strpart(lines[0], start - 1)
  let text = join(lines, "\n")
  if len(text) == a:bytes
    return text
  endif
  let text .= matchstr(lastline, '.', end - 1)
  return len(text) == a:bytes ? text : ''
endfunction

" The totals for $CLSFILE_SESSION_INPUT: written when the file opens, at most
" every 2 s while input goes on, before each write of the file, and when the
" file is closed or Vim exits.
function! s:WriteInputLater() abort
  if s:input_timer == -1 && $CLSFILE_SESSION_INPUT !=# ''
    let s:input_timer = timer_start(2000, {-> s:WriteInput()})
  endif
endfunction

function! s:WriteInput() abort
  if s:input_timer != -1
    call timer_stop(s:input_timer)
    let s:input_timer = -1
  endif
  if $CLSFILE_SESSION_INPUT ==# '' || !s:session_opened || !get(g:, 'clsfile_enabled', 1)
    return
  endif
  let c = s:session_counts
  try
    call writefile([printf('{"typed":%d,"pasted":%d,"moved":%d,"largestPaste":%d}',
          \ c.typed, c.pasted, c.moved, c.largestPaste)], $CLSFILE_SESSION_INPUT)
  catch
    call s:Remember('CLSFILE_SESSION_INPUT: ' . v:exception)
  endtry
endfunction

" Input: an edit at once when the last one is an interval old, and a
" trailing edit a pause after the input stops.
function! s:Input(buf) abort
  let path = s:Path(a:buf)
  if path ==# ''
    return
  endif
  if !has_key(s:opened, path)
    call s:Open(a:buf)
  endif
  let now = s:Now()
  let s:input[path] = now
  if has_key(s:trail_timer, path)
    call timer_stop(remove(s:trail_timer, path))
  endif
  let s:trail_timer[path] = timer_start(float2nr(s:Pause() * 1000),
        \ {-> s:Trail(path)})
  if now - get(s:last_edit, path, -1.0e9) < s:EditInterval()
    return
  endif
  let s:last_edit[path] = now
  call s:Send('edit', path, s:InputAt(path))
endfunction

function! s:Trail(path) abort
  silent! call remove(s:trail_timer, a:path)
  if !has_key(s:opened, a:path)
        \ || get(s:input, a:path, 0) <= get(s:last_sent, a:path, 0)
    return
  endif
  let s:last_edit[a:path] = s:Now()
  call s:Send('edit', a:path, s:InputAt(a:path))
endfunction

" A write is input too, but one that quits (:wq, :x, ZZ) or closes the
" buffer must not count an idle break before it as work: the save waits
" until the command is done, and a close or exit sends it first without it.
function! s:Save(buf) abort
  let path = s:Path(a:buf)
  if path ==# ''
    return
  endif
  " :saveas gives the buffer a new file: its session starts here.
  call s:Open(a:buf)
  if empty(s:saving)
    call timer_start(0, {-> s:Flush('', 1)})
  endif
  call add(s:saving, [path, a:buf, s:Now()])
endfunction

" Sends the waiting saves of path ('': all), with the write as input or not.
function! s:Flush(path, written) abort
  let writes = filter(copy(s:saving), {_, w -> a:path ==# '' || w[0] ==# a:path})
  call filter(s:saving, {_, w -> !(a:path ==# '' || w[0] ==# a:path)})
  for [path, buf, at] in writes
    if !has_key(s:opened, path)
      continue
    endif
    if a:written && at > get(s:input, path, 0)
      let s:input[path] = at
    endif
    call s:Send('save', path, s:InputAt(path) + s:Goal(buf))
  endfor
endfunction

" Sends the lines a window shows of the buffer when they changed, at most
" every g:clsfile_view_interval seconds; a change inside the interval is
" sent when it ends.
function! s:View(buf) abort
  let path = s:Path(a:buf)
  if path ==# '' || !has_key(s:opened, path)
    return
  endif
  let winid = bufwinid(a:buf)
  if winid == -1
    return
  endif
  let info = getwininfo(winid)[0]
  let total = max([1, line('$', winid)])
  let first = min([max([1, info.topline]), total])
  let last = min([max([first, info.botline]), total])
  let view = first . '-' . last
  if get(s:sent_view, path, '') ==# view . '/' . total
    return
  endif
  let wait = get(g:, 'clsfile_view_interval', 10) - (s:Now() - get(s:last_view, path, -1.0e9))
  if wait > 0
    if !has_key(s:view_timer, path)
      let s:view_timer[path] = timer_start(float2nr(ceil(wait * 1000)),
            \ {-> s:ViewLater(a:buf, path)})
    endif
    return
  endif
  let s:last_view[path] = s:Now()
  let s:sent_view[path] = view . '/' . total
  call s:Send('view', path, ['--view', view, '--total-lines', string(total)] + s:InputAt(path))
endfunction

function! s:ViewLater(buf, path) abort
  silent! call remove(s:view_timer, a:path)
  call s:View(a:buf)
endfunction

function! s:Forget(path) abort
  for table in [s:opened, s:bufs, s:input, s:last_sent, s:last_edit, s:last_view, s:sent_view, s:counts, s:sent]
    silent! call remove(table, a:path)
  endfor
  for timers in [s:view_timer, s:trail_timer]
    if has_key(timers, a:path)
      call timer_stop(remove(timers, a:path))
    endif
  endfor
endfunction

function! s:Close(buf, path) abort
  if a:path ==# '' || !has_key(s:opened, a:path)
    return
  endif
  call s:Flush(a:path, 0)
  let buf = a:buf > 0 ? a:buf : get(s:bufs, a:path, -1)
  let extra = s:InputAt(a:path) + ['--opened-at', s:Stamp(s:opened[a:path])] + s:Goal(buf)
  let entry = s:Entry(s:Arguments('close', a:path, extra), a:path)
  call s:Forget(a:path)
  if s:IsSessionFile(a:path)
    call s:WriteInput()
    return
  elseif s:leaving
    call s:RunNow(entry.args + s:Figures(entry))
  elseif s:Usable()
    " Queued with the counts of this open: a new open of the file counts anew.
    call add(s:queue, entry)
    call timer_start(0, {-> s:Next()})
  endif
endfunction

function! s:RunNow(args) abort
  call system(join(map(copy(a:args), {_, word -> shellescape(word)}), ' '))
endfunction

" On exit: let the running job end (up to 2 s), then run what waits and the
" closes synchronously, since Vim does not wait for jobs.
function! s:Leave() abort
  let s:leaving = 1
  call s:Flush('', 0)
  let deadline = s:Now() + 2.0
  while s:job isnot v:null && job_status(s:job) ==# 'run' && s:Now() < deadline
    sleep 20m
  endwhile
  let waiting = s:queue
  let s:queue = []
  call s:WriteInput()
  if !s:Usable()
    return
  endif
  for entry in waiting
    call s:RunNow(entry.args + s:Figures(entry))
  endfor
  for path in keys(s:opened)
    call s:Close(-1, path)
  endfor
endfunction

function! s:ShowErrors() abort
  if empty(s:errors)
    echo 'clsfile: no errors'
  else
    for line in s:errors
      echo line
    endfor
  endif
endfunction

command! -bar ClsfileErrors call s:ShowErrors()

augroup clsfile
  autocmd!
  autocmd BufEnter,BufReadPost * call s:Open(str2nr(expand('<abuf>')))
  autocmd BufEnter,BufWinEnter,WinEnter,VimResized * call s:Settle()
  autocmd TextChanged,TextChangedI * call s:Changed(str2nr(expand('<abuf>')))
  autocmd BufEnter,BufReadPost * call s:Resync()
  autocmd InsertCharPre * call s:Typed()
  if exists('##TextYankPost')
    autocmd TextYankPost * call s:Yanked()
  endif
  autocmd TextChanged * call s:Count('TextChanged')
  autocmd TextChangedI * call s:Count('TextChangedI')
  if exists('##TextChangedP')
    autocmd TextChangedP * call s:Count('TextChangedP')
  endif
  " Before the session file is written, its totals are: `clsfile open` reads
  " them when it sees the write, for the history's row of that save.
  autocmd BufWritePre * if s:IsSessionFile(expand('<afile>:p')) | call s:WriteInput() | endif
  autocmd BufWritePost * call s:Save(str2nr(expand('<abuf>')))
  autocmd CursorMoved,CursorMovedI * call s:Moved(bufnr('%'))
  autocmd BufWinEnter,VimResized * call s:View(bufnr('%'))
  if exists('##WinScrolled')
    autocmd WinScrolled * call s:Moved(bufnr('%'))
  endif
  autocmd BufUnload,BufDelete * call s:Close(str2nr(expand('<abuf>')), fnamemodify(expand('<afile>'), ':p'))
  autocmd VimLeavePre * call s:Leave()
augroup END

" Buffers that were loaded before this file (vim FILE, then :runtime).
if v:vim_did_enter
  call s:Open(bufnr('%'))
  call s:Settle()
else
  autocmd clsfile VimEnter * ++once call s:Open(bufnr('%')) | call s:Settle()
endif

let &cpo = s:cpo_save
unlet s:cpo_save
