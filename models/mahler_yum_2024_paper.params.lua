-- Parameters of models/mahler_yum_2024.lua -D variant=paper: the same estimates
-- with the paper's inputs (mahler_yum_2024/inputs.lua says what differs).
local inputs = require("mahler_yum_2024.inputs")
return inputs.model_params(require("mahler_yum_2024.estimates"), "paper")
