-- Broken on purpose: a function named risk_aversion beside the regime's
-- risk_aversion field (which one would the parameters of
-- alive.risk_aversion belong to?).
return require("ez_base"){
  risk_aversion = function(gamma) return gamma end,
  functions = { risk_aversion = function(gamma) return 2 * gamma end },
}
