" clsfile.vim - record editing sessions of real files with `clsfile hook`.
"
" Events: open (a file buffer is entered the first time), edit (typing, at
" most every g:clsfile_edit_interval seconds per file), save (every write),
" view (visible lines, at most every g:clsfile_view_interval seconds per file),
" close (buffer unloaded or deleted, and every open file when Vim exits).
"
" Calls run as asynchronous jobs, one at a time in order, so Vim never waits;
" only the final closes on exit are synchronous so that they are not lost.
"
" Settings (read at each event, so they may be set after this file loads):
"   g:clsfile_command        the clsfile executable ('clsfile', found on PATH)
"   g:clsfile_store          the store file (default: $CLSFILE_STORE or clsfile's own)
"   g:clsfile_edit_interval  seconds between edit events per file (120)
"   g:clsfile_view_interval  seconds between view events per file (10)
"   g:clsfile_enabled        0 turns recording off (1)
" Commands: :ClsfileErrors shows what clsfile reported on standard error.

if exists('g:loaded_clsfile') || !has('job') || !has('timers')
  finish
endif
let g:loaded_clsfile = 1

let s:cpo_save = &cpo
set cpo&vim

let s:queue = []        " argument lists waiting for a job
let s:job = v:null      " the running job, if any
let s:opened = {}       " absolute path -> 1 for files with a session
let s:last_edit = {}    " absolute path -> time of the last edit event
let s:last_view = {}    " absolute path -> time of the last view event
let s:sent_view = {}    " absolute path -> the last view sent, 'first-last/total'
let s:view_timer = {}   " absolute path -> timer id of a pending view
let s:errors = []       " the last lines clsfile wrote on standard error
let s:warned = 0
let s:leaving = 0

function! s:Now() abort
  return reltimefloat(reltime())
endfunction

function! s:Command() abort
  return get(g:, 'clsfile_command', 'clsfile')
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
    echomsg 'clsfile: "' . s:Command() . '" is not executable; set g:clsfile_command. Sessions are not recorded.'
  endif
  return 0
endfunction

" The absolute path of a buffer that is a real file, else ''.
function! s:Path(buf) abort
  if a:buf < 1 || !bufexists(a:buf) || getbufvar(a:buf, '&buftype') !=# ''
    return ''
  endif
  let name = bufname(a:buf)
  if name ==# '' || name =~# '^\a\a\+:'
    return ''
  endif
  let path = fnamemodify(name, ':p')
  return filereadable(path) ? path : ''
endfunction

function! s:Arguments(event, path, extra) abort
  let args = [s:Command(), 'hook', a:event, a:path, '--editor', 'vim'] + a:extra
  let store = get(g:, 'clsfile_store', '')
  if store !=# ''
    let args += ['--store', fnamemodify(store, ':p')]
  endif
  return args
endfunction

" Queues an event; a pending event of the same kind for the same file is replaced.
function! s:Send(event, path, extra) abort
  if !s:Usable()
    return
  endif
  let args = s:Arguments(a:event, a:path, a:extra)
  if a:event ==# 'edit' || a:event ==# 'view'
    call filter(s:queue, {_, queued -> !(queued[2] ==# a:event && queued[3] ==# a:path)})
  endif
  call add(s:queue, args)
  call s:Next()
endfunction

function! s:Next() abort
  if s:job isnot v:null && job_status(s:job) ==# 'run'
    return
  endif
  let s:job = v:null
  if empty(s:queue) || s:leaving
    return
  endif
  let args = remove(s:queue, 0)
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
  let s:opened[path] = 1
  call s:Send('open', path, [])
  call s:View(a:buf)
endfunction

function! s:Edit(buf) abort
  let path = s:Path(a:buf)
  if path ==# ''
    return
  endif
  if !has_key(s:opened, path)
    call s:Open(a:buf)
    return
  endif
  let now = s:Now()
  if now - get(s:last_edit, path, -1.0e9) < get(g:, 'clsfile_edit_interval', 120)
    return
  endif
  let s:last_edit[path] = now
  call s:Send('edit', path, [])
endfunction

function! s:Save(buf) abort
  let path = s:Path(a:buf)
  if path ==# ''
    return
  endif
  " A new file exists once written: its session starts here.
  let s:opened[path] = 1
  call s:Send('save', path, [])
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
  call s:Send('view', path, ['--view', view, '--total-lines', string(total)])
endfunction

function! s:ViewLater(buf, path) abort
  silent! call remove(s:view_timer, a:path)
  call s:View(a:buf)
endfunction

function! s:Forget(path) abort
  for table in [s:opened, s:last_edit, s:last_view, s:sent_view]
    silent! call remove(table, a:path)
  endfor
  if has_key(s:view_timer, a:path)
    call timer_stop(remove(s:view_timer, a:path))
  endif
endfunction

function! s:Close(buf, path) abort
  if a:path ==# '' || !has_key(s:opened, a:path)
    return
  endif
  call s:Forget(a:path)
  if s:leaving
    call s:RunNow(s:Arguments('close', a:path, []))
  else
    call s:Send('close', a:path, [])
  endif
endfunction

function! s:RunNow(args) abort
  call system(join(map(copy(a:args), {_, word -> shellescape(word)}), ' '))
endfunction

" On exit: let the running job end (up to 2 s), then run what waits and the
" closes synchronously, since Vim does not wait for jobs.
function! s:Leave() abort
  let s:leaving = 1
  let deadline = s:Now() + 2.0
  while s:job isnot v:null && job_status(s:job) ==# 'run' && s:Now() < deadline
    sleep 20m
  endwhile
  let waiting = s:queue
  let s:queue = []
  if !s:Usable()
    return
  endif
  for args in waiting
    call s:RunNow(args)
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
  autocmd TextChanged,TextChangedI * call s:Edit(str2nr(expand('<abuf>')))
  autocmd BufWritePost * call s:Save(str2nr(expand('<abuf>')))
  autocmd CursorMoved,CursorMovedI,BufWinEnter,VimResized * call s:View(bufnr('%'))
  if exists('##WinScrolled')
    autocmd WinScrolled * call s:View(bufnr('%'))
  endif
  autocmd BufUnload,BufDelete * call s:Close(-1, fnamemodify(expand('<afile>'), ':p'))
  autocmd VimLeavePre * call s:Leave()
augroup END

" Buffers that were loaded before this file (vim FILE, then :runtime).
if v:vim_did_enter
  call s:Open(bufnr('%'))
else
  autocmd clsfile VimEnter * ++once call s:Open(bufnr('%'))
endif

let &cpo = s:cpo_save
unlet s:cpo_save
