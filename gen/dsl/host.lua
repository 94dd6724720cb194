-- lcm/host.lua - runs a model file and returns it as data (lcm.build's B.model).
--
-- The model runs in the environment of the sandbox that the C host made
-- (gen/lua_sandbox.h): `box.env`.  Every Lua and data file it read through
-- the sandbox is in `box.files`; with the model first, they are what
-- `lcmgen -M` writes as a depfile, so build systems regenerate on change.

local H = {}

function H.run(model_path, given_options, given_fixes, box)
  local lcm = require("lcm")
  lcm._set_options(given_options)
  lcm._set_fixes(given_fixes)
  lcm._set_reader(box.read_file)

  local function deps()
    local list = { model_path }
    for _, path in ipairs(box.files) do
      if path ~= model_path then list[#list + 1] = path end
    end
    return list
  end

  -- Lua shortens long file names in its messages ("...s/models/x.lua:3:");
  -- put the full name of the file back.
  local function full_paths(msg)
    -- on the message's head: the sandbox bounds a pattern's cost by the
    -- length of its subject (gen/lua_sandbox.c), and a model may raise a
    -- long message
    local tail = msg:sub(1, 2000):match("^%.%.%.(.-):%d+:")
    local rest = tail and msg:sub(4 + #tail)
    if tail then
      for _, path in ipairs(deps()) do
        if path:sub(-#tail) == tail then return path .. rest end
      end
    end
    return msg
  end

  -- A failure's message: one that names no file (the model's error(msg,
  -- 0)) is given the model's name; an error value that is no
  -- message (a table) is named by its type, not by its address, so that the
  -- same model fails with the same words on every run.
  local function failed(msg)
    if type(msg) ~= "string" and type(msg) ~= "number" then
      error(model_path .. ": raised an error whose value is not a string (a " .. type(msg) .. ")", 0)
    end
    msg = full_paths(tostring(msg))
    local named = msg:sub(1, #model_path + 1) == model_path .. ":" or msg:sub(1, 2000):match("^.-%.lua:%d+[:,]")
    error(named and msg or model_path .. ": " .. msg, 0)
  end

  local chunk, err = box.load_file(model_path)
  if not chunk then failed(err) end
  local ok, model = pcall(chunk)
  if not ok then failed(model) end
  local stem = model_path:match("([^/]+)$"):gsub("%.lua$", "")
  local built, data, reachability = pcall(require("lcm.build").model, model, model_path, stem)
  if not built then failed(data) end
  return data, deps(), require("lcm.trace").take_warnings(), reachability
end

return H
