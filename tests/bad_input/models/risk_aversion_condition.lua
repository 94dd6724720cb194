-- Broken on purpose: risk_aversion returns a condition, not a number.
return require("ez_base"){
  risk_aversion = function(wealth) return wealth:gt(1) end,
}
