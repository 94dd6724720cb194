-- Broken at run time with gamma = 0: the risk aversion 1 / gamma is not a
-- finite number, so the certainty equivalent has no value.
return require("ez_base"){
  risk_aversion = function(gamma) return 1 / gamma end,
}
