-- Broken on purpose: the model file returns an lcm.regime, not lcm.model{...}.
local lcm = require("lcm")

return lcm.regime{ terminal = true, functions = { utility = function() return 0 end } }
