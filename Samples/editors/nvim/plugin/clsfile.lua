-- Loads the clsfile session recorder; see lua/clsfile/init.lua.
if vim.g.loaded_clsfile or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_clsfile = true

require('clsfile').enable()

vim.api.nvim_create_user_command('ClsfileErrors', function()
  local lines = require('clsfile').errors()
  if #lines == 0 then lines = { 'clsfile: no errors' } end
  vim.notify(table.concat(lines, '\n'))
end, { desc = 'Show what clsfile reported on standard error' })
