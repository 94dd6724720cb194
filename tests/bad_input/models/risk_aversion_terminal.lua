-- Broken on purpose: a terminal regime has no continuation, so no
-- certainty equivalent to take a risk aversion.
return require("ez_base"){
  risk_aversion = function(gamma) return gamma end,
  dead_risk_aversion = function(gamma) return gamma end,
}
