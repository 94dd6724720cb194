-- Tables with metamethods: the reader reads raw, so none of them runs.
local trap = { __index = function() error("index") end, __len = function() error("len") end,
  __pairs = function() error("pairs") end, __gc = function() end }
local wage = setmetatable({ bad = 8.0, good = 12.0 }, trap)
local list = setmetatable({}, { __len = function() return 7 end, __index = function() return 0.5 end })
return setmetatable({
  beta = setmetatable({ 0.97 }, { __index = function() return 0.9 end }),
  wage = wage,
  survival = list,
  interest_rate = 0.03,
}, trap)
