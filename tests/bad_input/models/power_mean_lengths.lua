-- Broken on purpose: lcm.power_mean with two values and one weight.
local lcm = require("lcm")

return require("ez_base"){
  risk_aversion = function(gamma) return gamma end,
  functions = {
    H = function(utility, E_next_V, beta) return lcm.power_mean({ utility, E_next_V }, { beta }, -1) end,
  },
}
