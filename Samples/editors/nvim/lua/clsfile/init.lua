-- clsfile: record editing sessions of real files with `clsfile hook`.
--
-- Events: open (a file buffer is entered the first time), edit (typing, at most
-- every `edit_interval` seconds per file), save (every write), view (visible
-- lines, at most every `view_interval` seconds per file), close (buffer
-- unloaded or deleted, and every open file when Neovim exits).
--
-- Calls run as jobs (vim.fn.jobstart), one at a time and in order, so Neovim
-- never waits; only the final closes on exit are synchronous so they are not lost.

local M = {}

local defaults = {
  command = 'clsfile',  -- the clsfile executable, found on PATH unless a path
  store = nil,          -- the store file; nil: $CLSFILE_STORE, else clsfile's default
  edit_interval = 120,  -- seconds between edit events per file
  view_interval = 10,   -- seconds between view events per file
  enabled = true,
}

local options = {}
local queue = {}        -- argument lists waiting for a job
local job = nil         -- the running job id
local opened = {}       -- absolute path -> true for files with a session
local last_edit = {}    -- path -> time of the last edit event
local last_view = {}    -- path -> time of the last view event
local sent_view = {}    -- path -> the last view sent, 'first-last/total'
local view_timer = {}   -- path -> pending timer
local errors = {}       -- what clsfile wrote on standard error
local warned = false
local leaving = false

-- A setting: setup() wins, then g:clsfile_<name>, then the default.
local function get(name)
  if options[name] ~= nil then return options[name] end
  local global = vim.g['clsfile_' .. name]
  if global ~= nil then
    if name == 'enabled' then return global ~= 0 and global ~= false end
    return global
  end
  return defaults[name]
end

local function now()
  return vim.loop.hrtime() / 1e9
end

local function remember(line)
  if line == nil or line == '' then return end
  table.insert(errors, os.date('%H:%M:%S ') .. line)
  if #errors > 50 then table.remove(errors, 1) end
end

-- True when events may be sent; says once when clsfile cannot be run.
local function usable()
  if not get('enabled') then return false end
  if vim.fn.executable(get('command')) == 1 then return true end
  if not warned then
    warned = true
    vim.schedule(function()
      vim.notify('clsfile: "' .. get('command') .. '" is not executable; set g:clsfile_command '
        .. 'or require("clsfile").setup{command = ...}. Sessions are not recorded.', vim.log.levels.WARN)
    end)
  end
  return false
end

-- The absolute path of a buffer that is a real file, else nil.
local function path_of(buf)
  if not buf or buf < 1 or not vim.api.nvim_buf_is_valid(buf) then return nil end
  if vim.api.nvim_buf_get_option(buf, 'buftype') ~= '' then return nil end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a%a+://') then return nil end
  local path = vim.fn.fnamemodify(name, ':p')
  if vim.fn.filereadable(path) ~= 1 then return nil end
  return path
end

local function arguments(event, path, extra)
  local args = { get('command'), 'hook', event, path, '--editor', 'nvim' }
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

-- Queues an event; a pending edit or view of the same file is replaced.
local function send(event, path, extra)
  if not usable() then return end
  if event == 'edit' or event == 'view' then
    for i = #queue, 1, -1 do
      if queue[i][3] == event and queue[i][4] == path then table.remove(queue, i) end
    end
  end
  table.insert(queue, arguments(event, path, extra))
  next_job()
end

local view

local function open(buf)
  local path = path_of(buf)
  if not path or opened[path] then return end
  opened[path] = true
  send('open', path)
  view(buf)
end

local function edit(buf)
  local path = path_of(buf)
  if not path then return end
  if not opened[path] then return open(buf) end
  local t = now()
  if t - (last_edit[path] or -1e9) < get('edit_interval') then return end
  last_edit[path] = t
  send('edit', path)
end

local function save(buf)
  local path = path_of(buf)
  if not path then return end
  opened[path] = true  -- a new file exists once written: its session starts here
  send('save', path)
end

-- Sends the lines a window shows when they changed, at most every
-- view_interval seconds; a change inside the interval is sent when it ends.
view = function(buf)
  local path = path_of(buf)
  if not path or not opened[path] then return end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then return end
  local info = vim.fn.getwininfo(win)[1]
  local total = math.max(1, vim.api.nvim_buf_line_count(buf))
  local first = math.min(math.max(1, info.topline), total)
  local last = math.min(math.max(first, info.botline), total)
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
  if view_timer[path] then
    pcall(function() view_timer[path]:stop() end)
    view_timer[path] = nil
  end
end

local function run_now(args)
  vim.fn.system(args)
  if vim.v.shell_error ~= 0 then remember(args[3] .. ' failed: ' .. vim.v.shell_error) end
end

local function close(path)
  if not path or not opened[path] then return end
  forget(path)
  if leaving then
    run_now(arguments('close', path))
  else
    send('close', path)
  end
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

--- Sets options: command, store, edit_interval, view_interval, enabled.
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
  on({ 'BufEnter', 'BufReadPost' }, function(a) open(a.buf) end)
  on({ 'TextChanged', 'TextChangedI' }, function(a) edit(a.buf) end)
  on('BufWritePost', function(a) save(a.buf) end)
  on({ 'CursorMoved', 'CursorMovedI', 'WinScrolled', 'BufWinEnter', 'VimResized' },
    function() view(vim.api.nvim_get_current_buf()) end)
  on({ 'BufUnload', 'BufDelete' }, function(a)
    if a.file ~= '' then close(vim.fn.fnamemodify(a.file, ':p')) end
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
