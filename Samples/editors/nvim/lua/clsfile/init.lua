-- clsfile: record editing sessions of real files with `clsfile hook` (plugin protocol 3).
--
-- Events: open (a file buffer is entered the first time, also a new file whose
-- folder exists), edit (typing, at most every min(edit_interval, idle / 2)
-- seconds per file, and once more a short pause after typing stops), save
-- (every write), view (visible lines, at most every `view_interval` seconds per
-- file), close (buffer unloaded or deleted, and every open file when Neovim exits).
-- Each event but open carries --input-at, the time of the latest input (typing,
-- cursor movement, scrolling, a write) in the buffer, so clsfile records the
-- work when it happened, not when the hook ran; close carries --opened-at. Edit,
-- save and close carry the characters typed, pasted and moved in the file since
-- the figures last sent for its open (--typed, --pasted, --moved, --largest-paste;
-- see "Typed and pasted characters" below and `figures`), so a Neovim that is killed loses
-- only those since its last event. For $CLSFILE_SESSION_FILE the totals are
-- written as JSON to $CLSFILE_SESSION_INPUT.
-- Only views are sent for $CLSFILE_SESSION_FILE, the file `clsfile open` runs
-- Neovim on: clsfile times that session itself.
--
-- Calls run as jobs (vim.fn.jobstart), one at a time and in order, so Neovim
-- never waits; only the final closes on exit are synchronous so they are not lost.

local M = {}

local defaults = {
  command = 'clsfile',  -- the clsfile executable, found on PATH unless a path
  store = nil,          -- the store file; nil: $CLSFILE_STORE, else clsfile's default
  edit_interval = 120,  -- seconds between edit events per file (at most idle / 2)
  view_interval = 10,   -- seconds between view events per file
  target_words = nil,   -- a positive number: progress is measured toward it
  reading = false,      -- the files are read: progress is the share of lines viewed
  enabled = true,
}

local options = {}
local queue = {}        -- events waiting for a job: { args, counts, sent } (see figures)
local job = nil         -- the running job id
local opened = {}       -- absolute path -> { at = Unix time of its open, buf = buffer }
local input_at = {}     -- path -> Unix time of the latest input since its open
local changed_at = {}   -- path -> Unix time of the latest text change
local covered = {}      -- path -> Unix time of the last edit or save sent
local last_edit = {}    -- path -> time of the last edit event
local last_view = {}    -- path -> time of the last view event
local sent_view = {}    -- path -> the last view sent, 'first-last/total'
local view_timer = {}   -- path -> pending timer
local trail_timer = {}  -- path -> the trailing edit's debounce timer
local saving = {}       -- writes whose save waits for the end of the command
local seen = {}         -- buffer -> its window, cursor and top line when last seen
local entering = {}     -- buffer -> true until the command that entered it is done
local ticks = {}        -- buffer -> b:changedtick when last seen
local counts = {}       -- path -> its input since its open: { typed, pasted, moved, largestPaste,
                        -- unsent = the largest paste not sent yet }
local sent = {}         -- path -> the figures sent since its open: { typed, pasted, moved }
local own = {}          -- { path, text } of the last yanks and deletes, newest last: text a paste
                        -- of which is the file's own, moved, not pasted
local session_counts = { typed = 0, pasted = 0, moved = 0, largestPaste = 0, unsent = 0 } -- $CLSFILE_SESSION_FILE's, over the run
local session_opened = false -- whether $CLSFILE_SESSION_FILE was opened, so its totals are ours to tell
local input_timer = nil -- the pending write of $CLSFILE_SESSION_INPUT
local buffers = {}      -- buffer -> how its changes are counted (see track)
local errors = {}       -- what clsfile wrote on standard error
local warned = false
local leaving = false

local function flag(value)
  return value == true or (type(value) == 'number' and value ~= 0)
end

-- A setting: setup() wins, then g:clsfile_<name>, then the default.
local function get(name)
  if options[name] ~= nil then return options[name] end
  local global = vim.g['clsfile_' .. name]
  if global ~= nil then
    if name == 'enabled' then return flag(global) end
    return global
  end
  return defaults[name]
end

-- A setting a buffer may override with b:clsfile_<name>.
local function get_for(buf, name)
  if buf and vim.api.nvim_buf_is_valid(buf) then
    local ok, value = pcall(vim.api.nvim_buf_get_var, buf, 'clsfile_' .. name)
    if ok and value ~= nil then return value end
  end
  return get(name)
end

-- Monotonic seconds, for intervals.
local function now()
  return vim.loop.hrtime() / 1e9
end

-- Unix time in seconds, for what clsfile records.
local function clock()
  local seconds, micro = vim.loop.gettimeofday()
  return seconds + micro / 1e6
end

-- $CLSFILE_IDLE_TIMEOUT if a positive number, else 300: clsfile's idle break.
local function idle()
  local value = tonumber(vim.env.CLSFILE_IDLE_TIMEOUT or '')
  if value and value > 0 then return value end
  return 300
end

local function remember(line)
  if line == nil or line == '' then return end
  table.insert(errors, os.date('%H:%M:%S ') .. line)
  if #errors > 50 then table.remove(errors, 1) end
end

-- One short line after start-up: two lines, or one wider than the screen,
-- would stop Neovim at a "Press ENTER" prompt.
local function warn()
  local function say()
    local line = 'clsfile: command not executable, see :ClsfileErrors'
    vim.notify(line:sub(1, math.max(10, vim.o.columns - 12)), vim.log.levels.WARN)
  end
  if vim.v.vim_did_enter == 1 then
    vim.defer_fn(say, 100)
  else
    vim.api.nvim_create_autocmd('VimEnter', {
      once = true, callback = function() vim.defer_fn(say, 100) end,
    })
  end
end

-- True when events may be sent; says once when clsfile cannot be run.
local function usable()
  if not get('enabled') then return false end
  if vim.fn.executable(get('command')) == 1 then return true end
  if not warned then
    warned = true
    remember('"' .. get('command') .. '" is not executable; set g:clsfile_command '
      .. 'or require("clsfile").setup{command = ...}. Sessions are not recorded.')
    warn()
  end
  return false
end

-- The path with symbolic links resolved, also for a file not written yet.
local function canonical(path)
  local real = vim.loop.fs_realpath(path)
  if real then return real end
  local folder = vim.loop.fs_realpath(vim.fn.fnamemodify(path, ':h'))
  return folder and (folder .. '/' .. vim.fn.fnamemodify(path, ':t')) or path
end

-- The absolute path of a buffer that is a real file, or a new file in an
-- existing folder, else nil; also nil for the file `clsfile open` runs us on.
local function path_of(buf)
  if not buf or buf < 1 or not vim.api.nvim_buf_is_valid(buf) then return nil end
  if vim.api.nvim_buf_get_option(buf, 'buftype') ~= '' then return nil end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a%a+://') then return nil end
  local path = vim.fn.fnamemodify(name, ':p')
  if vim.fn.filereadable(path) ~= 1 and not (vim.fn.getftype(path) == ''
      and vim.fn.isdirectory(vim.fn.fnamemodify(path, ':h')) == 1) then
    return nil
  end
  return path
end

-- True for the file `clsfile open` runs Neovim on: clsfile times it itself.
local function is_session_file(path)
  local session = vim.env.CLSFILE_SESSION_FILE
  return session ~= nil and session ~= '' and canonical(path) == canonical(session)
end

local function seconds(t)
  return string.format('%.3f', t)
end

-- --target-words and --reading, sent on open, save and close.
local function work(buf)
  local extra = {}
  local words = tonumber(get_for(buf, 'target_words') or '')
  if words and words >= 1 then
    table.insert(extra, '--target-words')
    table.insert(extra, tostring(math.floor(words)))
  end
  if flag(get_for(buf, 'reading')) then table.insert(extra, '--reading') end
  return extra
end

local function arguments(event, path, extra)
  local args = { get('command'), 'hook', event, path, '--editor', 'nvim' }
  if event ~= 'open' and input_at[path] then
    table.insert(args, '--input-at')
    table.insert(args, seconds(input_at[path]))
  end
  for _, word in ipairs(extra or {}) do table.insert(args, word) end
  local store = get('store')
  if store and store ~= '' then
    table.insert(args, '--store')
    table.insert(args, vim.fn.fnamemodify(store, ':p'))
  end
  return args
end

local next_job

local function running()
  return job ~= nil and vim.fn.jobwait({ job }, 0)[1] == -1
end

-- An event to run, with the counts its figures come from (none for a view).
local function entry(event, path, extra)
  local from = event ~= 'view' and path or nil
  return { args = arguments(event, path, extra), counts = counts[from], sent = sent[from] }
end

-- The figures an event carries, taken when it starts: the characters typed and
-- pasted since the figures last sent for the file's open, and the largest of
-- those pastes. An edit or a save with nothing new carries none; a close always
-- does (the rest, zeros included). A queued edit replaced by a newer one loses
-- nothing: the figures are counted when one starts.
local function figures(e)
  local c, done = e.counts, e.sent
  -- An open (or a view) carries none: clsfile refuses figures with it.
  local event = e.args[3]
  if not c or not done or (event ~= 'edit' and event ~= 'save' and event ~= 'close') then return e.args end
  local typed_now = math.max(0, c.typed - done.typed)
  local pasted_now = math.max(0, c.pasted - done.pasted)
  local moved_now = math.max(0, c.moved - done.moved)
  if typed_now == 0 and pasted_now == 0 and moved_now == 0 and event ~= 'close' then return e.args end
  local largest = math.min(c.unsent, pasted_now)
  done.typed, done.pasted, done.moved, c.unsent = done.typed + typed_now, done.pasted + pasted_now, done.moved + moved_now, 0
  local args = vim.list_extend({}, e.args)
  vim.list_extend(args, { '--typed', tostring(typed_now), '--pasted', tostring(pasted_now),
    '--moved', tostring(moved_now), '--largest-paste', tostring(largest) })
  return args
end

next_job = function()
  if running() or leaving then return end
  job = nil
  local e = table.remove(queue, 1)
  if not e then return end
  local args = figures(e)
  local ok, id = pcall(vim.fn.jobstart, args, {
    stdin = 'null',
    on_stderr = function(_, lines)
      for _, line in ipairs(lines) do remember(line) end
    end,
    on_exit = function(id)
      if job == id then job = nil end
      vim.schedule(next_job)
    end,
  })
  if ok and id > 0 then
    job = id
  else
    remember('could not start ' .. tostring(args[1]))
    vim.schedule(next_job)
  end
end

local function run_now(args)
  vim.fn.system(args)
  if vim.v.shell_error ~= 0 then remember(args[3] .. ' failed: ' .. vim.v.shell_error) end
end

-- Queues an event (runs it at once while Neovim exits); a pending edit or view
-- of the same file is replaced by the newer one, which has the newer --input-at.
local function send(event, path, extra)
  -- Only what the window shows (for reading progress) is the plugin's to tell
  -- about the file `clsfile open` times.
  if not usable() or (event ~= 'view' and is_session_file(path)) then return end
  if event == 'edit' or event == 'save' then covered[path] = clock() end
  if leaving then return run_now(figures(entry(event, path, extra))) end
  if event == 'edit' or event == 'view' then
    for i = #queue, 1, -1 do
      if queue[i].args[3] == event and queue[i].args[4] == path then table.remove(queue, i) end
    end
  end
  table.insert(queue, entry(event, path, extra))
  -- Started once the autocommands of this change are done, so that its figures
  -- are settled (count may move typed characters to pasted).
  vim.schedule(next_job)
end

local view

-- What input moves: the window, its cursor and its top line.
local function place(buf)
  local win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(win) ~= buf then win = vim.fn.bufwinid(buf) end
  if win == -1 then return nil end
  local v = vim.api.nvim_win_call(win, vim.fn.winsaveview)
  return table.concat({ win, v.lnum, v.col, v.topline, v.leftcol }, ' ')
end

-- Remembers where the buffer is, so entering it is not taken for input: Neovim
-- puts the cursor back, and says CursorMoved, after BufEnter and BufWinEnter.
local function look(buf)
  seen[buf] = place(buf)
  ticks[buf] = vim.api.nvim_buf_get_changedtick(buf)
  if not entering[buf] then
    entering[buf] = true
    vim.schedule(function() entering[buf] = nil end)
  end
end

-- Typed and pasted characters. Neovim says neither, so they are told apart by where a
-- change came from:
-- - pasted: what vim.paste inserts (a bracketed paste from the terminal, a GUI's paste),
--   counted by wrapping it; in Insert mode two or more characters that arrive at once
--   without InsertCharPre (CTRL-R CTRL-R), or through it matching a register (CTRL-R
--   {register} feeds the register as if typed); in Normal mode a new change (not an undo
--   or a redo) that only inserts text: p, P, gp, ]p, "+p, :put, :read, :copy;
-- - typed: each character InsertCharPre sees (keys, input-method commits, digraphs,
--   repeats with .), and in Insert mode text that comes without it but is no paste: a
--   line break and indent, one character (CTRL-Y, CTRL-E), a completion.
-- Each keystroke costs a few table updates; the text is only read when more arrived
-- than was typed.

-- The buffer's size in bytes: cheap, unlike its characters. An empty buffer, one line
-- and its line break, says -1.
local function size(buf)
  local bytes = vim.api.nvim_buf_get_offset(buf, vim.api.nvim_buf_line_count(buf))
  return bytes < 0 and 1 or bytes
end

-- Counts the buffer's changes from its text as it is now.
local function resync(buf)
  local state = buffers[buf]
  if not state or not vim.api.nvim_buf_is_loaded(buf) then return end
  state.size = size(buf)
  state.change = math.max(state.change, vim.api.nvim_buf_call(buf, vim.fn.changenr))
  state.typed = ''
end

-- The totals for $CLSFILE_SESSION_INPUT: written when the file opens, at most every
-- 2 s while input goes on, before each write of the file, and when the file is closed
-- or Neovim exits.
local function write_input()
  local file = vim.env.CLSFILE_SESSION_INPUT
  if not file or file == '' or not session_opened or not get('enabled') then return end
  local c = session_counts
  local ok, err = pcall(vim.fn.writefile, {
    string.format('{"typed":%d,"pasted":%d,"moved":%d,"largestPaste":%d}', c.typed, c.pasted, c.moved, c.largestPaste),
  }, file)
  if not ok then remember('CLSFILE_SESSION_INPUT: ' .. tostring(err)) end
end

local function write_input_later()
  if input_timer or (vim.env.CLSFILE_SESSION_INPUT or '') == '' then return end
  input_timer = vim.defer_fn(function()
    input_timer = nil
    write_input()
  end, 2000)
end

-- Text without the line breaks at its ends: a put of lines ends with one.
local function trimmed(text)
  return (text:gsub('^\n+', ''):gsub('\n+$', ''))
end

-- True when text pasted in buf is its file's own: yanked or deleted in it in this run of
-- Neovim, or held by it before the paste (it now holds it twice).
local function is_own(buf, text)
  text = trimmed(text)
  if text == '' then return false end
  local path = path_of(buf)
  for _, held in ipairs(own) do
    if held[1] == path and held[2] == text then return true end
  end
  local whole = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  local first = whole:find(text, 1, true)
  return first ~= nil and whole:find(text, first + #text, true) ~= nil
end

-- A paste of text into buf: moved when it is the file's own (is_own), else pasted.
local function pasted(state, buf, text)
  local chars = vim.fn.strchars(text)
  if is_own(buf, text) then
    state.counts.moved = state.counts.moved + chars
    return
  end
  state.counts.pasted = state.counts.pasted + chars
  state.counts.largestPaste = math.max(state.counts.largestPaste, chars)
  state.counts.unsent = math.max(state.counts.unsent, chars)
end

-- TextYankPost: a yank or delete in a file keeps its text as the file's own.
local function yanked(buf)
  local path = path_of(buf)
  local text = trimmed(table.concat(vim.v.event.regcontents or {}, '\n'))
  if not path or text == '' then return end
  table.insert(own, { path, text })
  if #own > 20 then table.remove(own, 1) end
end

-- InsertCharPre: a character typed (or fed as if typed) in Insert mode.
local function typed(buf)
  local state = buffers[buf]
  if not state then return end
  local char = vim.v.char
  state.counts.typed = state.counts.typed + vim.fn.strchars(char)
  state.typed = state.typed .. char
end

-- vim.paste, wrapped: what it puts in a file's buffer is pasted, a streamed paste
-- (phases 1, 2, 3) being one paste.
local original_paste
local function paste(lines, phase)
  local buf = vim.api.nvim_get_current_buf()
  local mode = vim.api.nvim_get_mode().mode
  local result = original_paste(lines, phase)
  local state = buffers[buf]
  -- A paste into the command line or a terminal is not the file's.
  if state and not mode:find('^[ct]') then
    if phase == -1 or phase == 1 then state.paste = {} end
    table.insert(state.paste, table.concat(lines, '\n'))
    resync(buf) -- counted here, not again when its TextChanged comes
    -- Counted whole at its end (or when it is cancelled), so that an event sent between its
    -- chunks does not split one paste into two smaller ones.
    if phase == -1 or phase == 3 or result == false then
      pasted(state, buf, table.concat(state.paste))
      state.paste = {}
      if state.session then write_input_later() end
    end
  end
  return result
end

-- True when text is a register's content without its line breaks (Insert mode CTRL-R
-- feeds those as Enter, which InsertCharPre does not see). The clipboard registers are
-- left out: reading them runs the clipboard provider, which would make Neovim wait.
local function in_register(text)
  local names = vim.split('0123456789abcdefghijklmnopqrstuvwxyz-', '')
  if not vim.o.clipboard:find('unnamed') then table.insert(names, '"') end
  for _, name in ipairs(names) do
    if (vim.fn.getreg(name):gsub('\n', '')) == text then return true end
  end
  return false
end

-- The `bytes` bytes before the cursor: what Insert mode just inserted.
local function before_cursor(buf, bytes)
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local first, missing = row, bytes - col
  while missing > 0 and first > 1 do
    first = first - 1
    missing = missing - #vim.api.nvim_buf_get_lines(buf, first - 1, first, false)[1] - 1
  end
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, row, false)
  lines[#lines] = lines[#lines]:sub(1, col)
  local text = table.concat(lines, '\n')
  return text:sub(math.max(1, #text - bytes + 1))
end

-- The text a Normal-mode command inserted, from the '[ and '] marks, when it is `bytes`
-- bytes long, else nil (a change that also replaced text, like :s or >>). A put marks
-- its whole lines, or its text up to the first byte of its last character.
local function inserted(buf, bytes)
  local first, start = unpack(vim.api.nvim_buf_get_mark(buf, '['))
  local last, finish = unpack(vim.api.nvim_buf_get_mark(buf, ']'))
  if first < 1 or last < first or last - first > bytes then return nil end
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  local whole = table.concat(lines, '\n') .. '\n'
  if start == 0 and #whole == bytes then return whole end
  local lastline = lines[#lines]
  lines[#lines] = lastline:sub(1, finish)
  lines[1] = lines[1]:sub(start + 1)
  local text = table.concat(lines, '\n')
  if #text == bytes then return text end
  text = text .. vim.fn.matchstr(lastline, '.', finish)
  return #text == bytes and text or nil
end

-- TextChanged, TextChangedI, TextChangedP: sorts what the change inserted beyond the
-- typed characters.
local function count(event, buf)
  local state = buffers[buf]
  if not state then return end
  local now_size, change = size(buf), vim.fn.changenr()
  local grown, keys = now_size - state.size, state.typed
  -- Undo and redo go back to changes that already had a number.
  local new = change > state.change
  state.size, state.change, state.typed = now_size, math.max(change, state.change), ''
  if state.session then write_input_later() end
  if grown <= 0 and #keys < 2 then return end
  local c = state.counts
  local keyed = vim.fn.strchars(keys)
  if event == 'TextChanged' then
    if grown > 0 and new and keys == '' then
      local text = inserted(buf, grown)
      if text then pasted(state, buf, text) end
    end
  elseif keyed > 1 and in_register(keys) then
    c.typed = c.typed - keyed
    pasted(state, buf, grown > #keys and before_cursor(buf, grown) or keys)
  elseif grown > #keys then
    local text = before_cursor(buf, grown)
    local more = math.max(0, vim.fn.strchars(text) - keyed) -- clsfile refuses a negative count
    if keys == '' and more > 1 and text:find('%S') and event == 'TextChangedI'
        and not vim.api.nvim_get_mode().mode:find('^i[cx]') then
      pasted(state, buf, text)
    else
      c.typed = c.typed + more
    end
  end
end

-- Starts counting the input in buf, the buffer of path, at its open.
local function track(buf, path)
  local session = is_session_file(path)
  session_opened = session_opened or session
  -- `clsfile open` counts its file's input over the whole run, through buffer reloads.
  counts[path] = session and session_counts or { typed = 0, pasted = 0, moved = 0, largestPaste = 0, unsent = 0 }
  sent[path] = { typed = 0, pasted = 0, moved = 0 }
  buffers[buf] = { counts = counts[path], session = session, size = 0, change = 0, typed = '', paste = {} }
  resync(buf)
  -- Written at once: `clsfile open` then knows from the start that Neovim counts.
  if session then write_input() end
end

local function open(buf)
  local path = path_of(buf)
  if not path or opened[path] then return end
  look(buf)
  opened[path] = { at = clock(), buf = buf }
  track(buf, path)
  send('open', path, work(buf))
  view(buf)
end

local function trailing(path)
  if not opened[path] or not changed_at[path] then return end
  if changed_at[path] <= (covered[path] or 0) then return end
  last_edit[path] = now()
  send('edit', path)
end

-- Input in path: later events carry its time, and the trailing edit waits
-- for a pause of min(3 s, idle / 4) after it.
local function input(path, t)
  input_at[path] = t
  local timer = trail_timer[path]
  if not timer then
    timer = vim.loop.new_timer()
    trail_timer[path] = timer
  end
  timer:stop()
  timer:start(math.floor(math.min(3, idle() / 4) * 1000), 0,
    vim.schedule_wrap(function() trailing(path) end))
end

local function edit(buf)
  local path = path_of(buf)
  if not path then return end
  local tick, before = vim.api.nvim_buf_get_changedtick(buf), ticks[buf]
  if not opened[path] then open(buf) end
  if tick == before then return end  -- TextChanged also comes without a change
  ticks[buf] = tick
  local t = clock()
  changed_at[path] = t
  input(path, t)
  if now() - (last_edit[path] or -1e9) < math.min(tonumber(get('edit_interval')), idle() / 2) then
    return
  end
  last_edit[path] = now()
  send('edit', path)
end

-- Cursor movement and scrolling are input; entering a buffer is not.
local function move(buf)
  local path = path_of(buf)
  if not path or not opened[path] then return end
  local here = place(buf)
  if here ~= seen[buf] then
    seen[buf] = here
    if not entering[buf] then input(path, clock()) end
  end
  view(buf)
end

-- Sends the save once the command is done, with the write as input; a write
-- that quits (:wq, :x, ZZ) is sent by close() first, with the input before it,
-- so an idle break before it does not count as work.
local function flush()
  local writes = saving
  saving = {}
  for _, w in ipairs(writes) do
    if opened[w.path] then
      input_at[w.path] = math.max(w.at, input_at[w.path] or 0)
      send('save', w.path, work(w.buf))
    end
  end
end

local function save(buf)
  local path = path_of(buf)
  if not path then return end
  if not opened[path] then open(buf) end
  if #saving == 0 then vim.schedule(flush) end
  table.insert(saving, { path = path, buf = buf, at = clock() })
end

-- Sends the lines a window shows when they changed, at most every
-- view_interval seconds; a change inside the interval is sent when it ends.
view = function(buf)
  local path = path_of(buf)
  if not path or not opened[path] then return end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then return end
  -- line('w$') works out the bottom line before the first redraw; getwininfo() says 0
  local total = math.max(1, vim.api.nvim_buf_line_count(buf))
  local first = math.min(math.max(1, vim.fn.line('w0', win)), total)
  local last = math.min(math.max(first, vim.fn.line('w$', win)), total)
  local key = first .. '-' .. last .. '/' .. total
  if sent_view[path] == key then return end
  local wait = get('view_interval') - (now() - (last_view[path] or -1e9))
  if wait > 0 then
    if not view_timer[path] then
      view_timer[path] = vim.defer_fn(function()
        view_timer[path] = nil
        view(buf)
      end, math.ceil(wait * 1000))
    end
    return
  end
  last_view[path] = now()
  sent_view[path] = key
  send('view', path, { '--view', first .. '-' .. last, '--total-lines', tostring(total) })
end

local function forget(path)
  opened[path], last_edit[path], last_view[path], sent_view[path], counts[path] = nil, nil, nil, nil, nil
  sent[path] = nil
  input_at[path], changed_at[path], covered[path] = nil, nil, nil
  for _, timers in ipairs({ view_timer, trail_timer }) do
    local timer = timers[path]
    timers[path] = nil
    if timer then
      pcall(function()
        timer:stop()
        timer:close()
      end)
    end
  end
end

local function close(path)
  local session = path and opened[path]
  if not session then return end
  for i = #saving, 1, -1 do
    local w = saving[i]
    if w.path == path then
      table.remove(saving, i)
      send('save', path, work(w.buf))
    end
  end
  local extra = work(session.buf)
  vim.list_extend(extra, { '--opened-at', seconds(session.at) })
  send('close', path, extra)
  forget(path)
  if is_session_file(path) then write_input() end
end

-- On exit: let the running job end (up to 2 s), then run what waits and the
-- closes synchronously, since Neovim does not wait for jobs.
local function leave()
  if job then vim.fn.jobwait({ job }, 2000) end
  leaving = true
  job = nil
  local waiting = queue
  queue = {}
  write_input()
  if not usable() then return end
  for _, e in ipairs(waiting) do run_now(figures(e)) end
  for path in pairs(vim.deepcopy(opened)) do close(path) end
end

--- The lines clsfile wrote on standard error.
function M.errors()
  return vim.deepcopy(errors)
end

--- Sets options: command, store, edit_interval, view_interval, target_words,
--- reading, enabled.
function M.setup(opts)
  options = vim.tbl_extend('force', options, opts or {})
  M.enable()
end

--- Installs the autocommands (done by plugin/clsfile.lua).
function M.enable()
  local group = vim.api.nvim_create_augroup('clsfile', { clear = true })
  local function on(events, callback)
    vim.api.nvim_create_autocmd(events, { group = group, callback = callback })
  end
  on({ 'BufEnter', 'BufReadPost' }, function(a)
    open(a.buf)
    look(a.buf)
  end)
  on({ 'TextChanged', 'TextChangedI' }, function(a) edit(a.buf) end)
  on({ 'BufEnter', 'BufReadPost' }, function(a) resync(a.buf) end)
  on('InsertCharPre', function(a) typed(a.buf) end)
  on('TextYankPost', function(a) yanked(a.buf) end)
  on({ 'TextChanged', 'TextChangedI', 'TextChangedP' }, function(a) count(a.event, a.buf) end)
  if not original_paste then
    original_paste = vim.paste
    vim.paste = paste
  end
  -- Before the session file is written, its totals are: `clsfile open` reads them when it
  -- sees the write, for the history's row of that save.
  on('BufWritePre', function(a)
    if buffers[a.buf] and buffers[a.buf].session then write_input() end
  end)
  on('BufWritePost', function(a) save(a.buf) end)
  on({ 'BufWinEnter', 'WinEnter', 'VimResized' }, function()
    local buf = vim.api.nvim_get_current_buf()
    look(buf)
    view(buf)
  end)
  on({ 'CursorMoved', 'CursorMovedI', 'WinScrolled' },
    function() move(vim.api.nvim_get_current_buf()) end)
  on({ 'BufUnload', 'BufDelete' }, function(a)
    if a.file ~= '' then close(vim.fn.fnamemodify(a.file, ':p')) end
    seen[a.buf], ticks[a.buf], buffers[a.buf] = nil, nil, nil
  end)
  on('VimLeavePre', leave)
  if vim.v.vim_did_enter == 1 then
    open(vim.api.nvim_get_current_buf())
  else
    vim.api.nvim_create_autocmd('VimEnter', {
      group = group, once = true,
      callback = function() open(vim.api.nvim_get_current_buf()) end,
    })
  end
end

return M
