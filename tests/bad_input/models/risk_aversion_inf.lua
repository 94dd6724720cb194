-- Broken on purpose: a constant risk aversion that is not a finite number.
return require("ez_base"){
  risk_aversion = function() return math.huge end,
}
