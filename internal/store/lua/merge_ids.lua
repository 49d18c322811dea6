local cap, floor = tonumber(ARGV[1]), tonumber(ARGV[2])
local cur = redis.call('LRANGE', KEYS[1], 0, cap - 1)
local out, i, j = {}, 1, 3
while #out < cap and (i <= #cur or j <= #ARGV) do
  local a, b = tonumber(cur[i]), tonumber(ARGV[j])
  local v
  if b == nil or (a ~= nil and a > b) then v = cur[i]; i = i + 1
  elseif a == nil or b > a then v = ARGV[j]; j = j + 1
  else v = cur[i]; i = i + 1; j = j + 1 end
  if tonumber(v) < floor then break end
  if #out == 0 or tonumber(out[#out]) ~= tonumber(v) then out[#out + 1] = v end
end
redis.call('DEL', KEYS[1])
for k = 1, #out, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(out, k, math.min(k + 999, #out)))
end
return #out
