-- space.near crosses conditional parameters where space.neighbours does
-- not: from pipeline's plain kind (barrier = none: chunk and prefetch, no
-- stages) near reaches the staged kinds, each differing from it in barrier
-- and in parameters only one of the two has; neighbours stays plain.
local S, asked = {}, nil
function S.init(space)
  local c
  for _, x in ipairs(space.candidates) do
    if x.values.barrier == "none" then c = x; break end
  end
  if not c then error("no plain candidate") end
  for _, d in ipairs(space.neighbours(c)) do
    if d.values.barrier ~= "none" then error("neighbours crossed to barrier " .. d.values.barrier) end
  end
  local staged = 0
  for _, d in ipairs(space.near(c)) do
    local differ = 0
    for k, v in pairs(c.values) do
      if d.values[k] ~= nil and d.values[k] ~= v then differ = differ + 1 end
    end
    if differ ~= 1 then error("a near candidate differs in " .. differ .. " shared values") end
    if d.values.barrier ~= "none" then staged = staged + 1 end
  end
  if staged == 0 then error("near did not reach a staged kind") end
  asked = space.near(c)
end
function S.ask()
  local out = {}
  for i = 1, #(asked or {}) do out[i] = asked[i] end
  asked = nil
  return out
end
function S.tell() end
return S
