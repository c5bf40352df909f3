-- A stand-in for the Fennel compiler, for tests: it compiles a small
-- subset of Fennel (local, fn, calls, a:b method calls, a.b fields,
-- + - * / .., tables, sequences, require, import-macros, require-macros)
-- with the API Metronome uses: compileString returning Lua and a source
-- map, eval, macro-searchers. Its Lua lines differ from the source lines
-- on purpose, so only the source map puts positions right.
local fennel = { version = "0.0-stand-in", path = "", ["macro-path"] = "" }
local searchers = {}
fennel["macro-searchers"] = searchers

local function fail(kind, filename, line, col, msg)
  error(string.format("%s:%d:%d: %s error: %s", filename, line, col, kind, msg), 0)
end

-- reader

local function read(src, filename)
  local i, line, col = 1, 1, 0
  local function peek() return src:sub(i, i) end
  local function adv()
    local c = src:sub(i, i)
    i = i + 1
    if c == "\n" then line, col = line + 1, 0 else col = col + 1 end
    return c
  end
  local function skip()
    while i <= #src do
      local c = peek()
      if c == ";" then
        while i <= #src and peek() ~= "\n" do adv() end
      elseif c:match("%s") then adv()
      else return end
    end
  end
  local closer = { ["("] = ")", ["["] = "]", ["{"] = "}" }
  local tags = { ["("] = "list", ["["] = "seq", ["{"] = "tbl" }
  local form
  function form()
    skip()
    if i > #src then return nil end
    local l, c0 = line, col
    local c = peek()
    if closer[c] then
      adv()
      local node = { tag = tags[c], line = l }
      while true do
        skip()
        if i > #src then fail("Parse", filename, line, col, "expected closing delimiter " .. closer[c]) end
        if peek() == closer[c] then adv() break end
        if peek():match("[%)%]}]") then fail("Parse", filename, line, col, "mismatched closing delimiter " .. peek()) end
        node[#node + 1] = form()
      end
      return node
    elseif c:match("[%)%]}]") then
      fail("Parse", filename, l, c0, "unexpected closing delimiter " .. c)
    elseif c == '"' then
      adv()
      local b = {}
      while true do
        if i > #src then fail("Parse", filename, line, col, "unterminated string") end
        local ch = adv()
        if ch == '"' then break end
        if ch == "\\" then
          local e = adv()
          ch = ({ n = "\n", t = "\t" })[e] or e
        end
        b[#b + 1] = ch
      end
      return table.concat(b)
    elseif c == ":" then
      adv()
      local s = src:match("^[^%s%(%)%[%]{}\";]*", i)
      for _ = 1, #s do adv() end
      if s == "" then return { tag = "sym", name = ":", line = l } end
      return s
    else
      local s = src:match("^[^%s%(%)%[%]{}\";]+", i)
      for _ = 1, #s do adv() end
      local n = tonumber(s)
      if n then return n end
      return { tag = "sym", name = s, line = l }
    end
  end
  local forms = {}
  while true do
    local f = form()
    if f == nil then break end
    forms[#forms + 1] = f
  end
  return forms
end

-- compiler: "\0LINE\0" marks where the code of a source line starts

local function mark(l) return l and ("\0" .. l .. "\0") or "" end

local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(ch) return string.format("\\%03d", ch:byte()) end) .. '"'
end

local function mangle(name)
  return (name:gsub("%?$", "_3f"):gsub("!$", "_21"):gsub("[^%w_]", "_"))
end

local ops = { ["+"] = "+", ["-"] = "-", ["*"] = "*", ["/"] = "/", [".."] = "..", ["="] = "==" }

local function compiler(filename, macros)
  local expr, body
  local function symbol(node)
    local name = node.name
    if name == "nil" or name == "true" or name == "false" then return name end
    local parts = {}
    for p in name:gmatch("[^%.]+") do parts[#parts + 1] = p end
    local out = mangle(parts[1])
    for k = 2, #parts do out = out .. "[" .. quote(parts[k]) .. "]" end
    return out
  end
  local function args(node, from)
    local a = {}
    for k = from, #node do a[#a + 1] = expr(node[k]) end
    return table.concat(a, ", ")
  end
  local function useMacros(node, all)
    local modname = node[#node]
    for _, search in ipairs(searchers) do
      local loader, path = search(modname)
      if loader then
        local m = loader(modname, path)
        if type(m) ~= "table" then fail("Compile", filename, node.line, 0, "expected macros to be table") end
        if all then
          for k, v in pairs(m) do macros[k] = v end
        else
          local spec = node[2]
          for k = 1, #spec, 2 do macros[spec[k + 1].name] = m[spec[k + 1].name] end
        end
        return "nil"
      end
    end
    fail("Compile", filename, node.line, 0, modname .. " module not found.")
  end
  function expr(node)
    if type(node) == "number" then return tostring(node) end
    if type(node) == "string" then return quote(node) end
    if node.tag == "sym" then return symbol(node) end
    if node.tag == "seq" then return "{" .. args(node, 1) .. "}" end
    if node.tag == "tbl" then
      local a = {}
      for k = 1, #node, 2 do
        local key, v = node[k], node[k + 1]
        if type(key) == "table" and key.tag == "sym" and key.name == ":" then key = v.name end
        a[#a + 1] = "[" .. expr(key) .. "] = " .. expr(v)
      end
      return "{" .. table.concat(a, ", ") .. "}"
    end
    local head = node[1]
    if head == nil then fail("Compile", filename, node.line, 0, "expected a function, macro, or special to call") end
    local h = type(head) == "table" and head.tag == "sym" and head.name
    if h and macros[h] then return expr(macros[h](select(2, (table.unpack or unpack)(node)))) end
    if h == "fn" then
      local k, name = 2, nil
      if type(node[2]) == "table" and node[2].tag == "sym" then name, k = mangle(node[2].name), 3 end
      local params = {}
      if type(node[k]) ~= "table" or node[k].tag ~= "seq" then
        fail("Compile", filename, node.line, 0, "expected parameters table")
      end
      for _, p in ipairs(node[k]) do params[#params + 1] = mangle(p.name) end
      local fn = "function(" .. table.concat(params, ", ") .. ")\n" .. body(node, k + 1) .. "\nend"
      if name then
        return "(function() local " .. name .. "; " .. name .. " = " .. fn .. " return " .. name .. " end)()",
          "local " .. name .. "; " .. name .. " = " .. fn
      end
      return fn
    elseif h == "local" or h == "var" then
      if #node ~= 3 or type(node[2]) ~= "table" or node[2].tag ~= "sym" then
        fail("Compile", filename, node.line, 0, "expected name and value")
      end
      return nil, "local " .. mangle(node[2].name) .. " = " .. expr(node[3])
    elseif h == "set" then
      return nil, symbol(node[2]) .. " = " .. expr(node[3])
    elseif h == "import-macros" then
      return useMacros(node, false)
    elseif h == "require-macros" then
      return useMacros(node, true)
    elseif h and ops[h] then
      local a = {}
      for k = 2, #node do a[#a + 1] = expr(node[k]) end
      return "(" .. table.concat(a, " " .. ops[h] .. " ") .. ")"
    elseif h and h:find(":", 2, true) then
      local obj, meth = h:match("^(.-):(.*)$")
      local o = symbol({ name = obj })
      local rest = args(node, 2)
      return mark(node.line) .. o .. "[" .. quote(meth) .. "](" .. o .. (rest ~= "" and ", " .. rest or "") .. ")"
    end
    return mark(node.line) .. expr(head) .. "(" .. args(node, 2) .. ")"
  end
  -- body compiles node[from..] as statements, the last one returned.
  function body(node, from)
    local out = {}
    for k = from, #node do
      local f = node[k]
      local e, stmt = expr(f)
      local l = type(f) == "table" and f.line
      if stmt then
        out[#out + 1] = mark(l) .. stmt
      elseif k == #node then
        out[#out + 1] = mark(l) .. "return " .. e
      elseif type(f) == "table" and f.tag == "list" then
        out[#out + 1] = mark(l) .. "local _ = " .. e
      end
    end
    return table.concat(out, "\n")
  end
  return body
end

function fennel.compileString(src, opts)
  opts = opts or {}
  local filename = opts.filename or "unknown"
  local forms = read(src, filename)
  local code = "-- compiled by the stand-in\n" .. compiler(filename, opts.macros or {})(forms, 1)
  -- split into lines, reading the marks
  local lines, map, current = {}, {}, nil
  for l in (code .. "\n"):gmatch("([^\n]*)\n") do
    local first = l:match("%z(%d+)%z")
    if first then current = tonumber(first) end
    lines[#lines + 1] = (l:gsub("%z%d+%z", ""))
    map[#map + 1] = { filename, first and tonumber(first) or current }
  end
  return table.concat(lines, "\n"), map
end

function fennel.list(...) return { tag = "list", ... } end
function fennel.sym(name) return { tag = "sym", name = name } end

function fennel.eval(src, opts)
  opts = opts or {}
  local code = fennel.compileString(src, opts)
  local env
  if opts.env == "_COMPILER" then
    env = setmetatable({ list = fennel.list, sym = fennel.sym }, { __index = _G })
  end
  local f, err = load(code, opts.filename, "t", env)
  if not f then error(err, 0) end
  return f()
end

return fennel
