-- Broken on purpose: risk_aversion must be a function (of the usual
-- arguments) returning the risk aversion, not a number.
return require("ez_base"){ risk_aversion = 5 }
