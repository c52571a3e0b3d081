-- clsfile: record editing sessions of real files with `clsfile hook` (plugin protocol 2).
--
-- Events: open (a file buffer is entered the first time, also a new file whose
-- folder exists), edit (typing, at most every min(edit_interval, idle / 2)
-- seconds per file, and once more a short pause after typing stops), save
-- (every write), view (visible lines, at most every `view_interval` seconds per
-- file), close (buffer unloaded or deleted, and every open file when Neovim exits).
-- Each event but open carries --input-at, the time of the latest input (typing,
-- cursor movement, scrolling, a write) in the buffer, so clsfile records the
-- work when it happened, not when the hook ran; close carries --opened-at.
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
local queue = {}        -- argument lists waiting for a job
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

next_job = function()
  if running() or leaving then return end
  job = nil
  local args = table.remove(queue, 1)
  if not args then return end
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
  if leaving then return run_now(arguments(event, path, extra)) end
  if event == 'edit' or event == 'view' then
    for i = #queue, 1, -1 do
      if queue[i][3] == event and queue[i][4] == path then table.remove(queue, i) end
    end
  end
  table.insert(queue, arguments(event, path, extra))
  next_job()
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

local function open(buf)
  local path = path_of(buf)
  if not path or opened[path] then return end
  look(buf)
  opened[path] = { at = clock(), buf = buf }
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
  opened[path], last_edit[path], last_view[path], sent_view[path] = nil, nil, nil, nil
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
  table.insert(extra, '--opened-at')
  table.insert(extra, seconds(session.at))
  send('close', path, extra)
  forget(path)
end

-- On exit: let the running job end (up to 2 s), then run what waits and the
-- closes synchronously, since Neovim does not wait for jobs.
local function leave()
  if job then vim.fn.jobwait({ job }, 2000) end
  leaving = true
  job = nil
  local waiting = queue
  queue = {}
  if not usable() then return end
  for _, args in ipairs(waiting) do run_now(args) end
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
    seen[a.buf], ticks[a.buf] = nil, nil
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
