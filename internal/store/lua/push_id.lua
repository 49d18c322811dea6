local id, cap = tonumber(ARGV[1]), tonumber(ARGV[2])
local head = redis.call('LINDEX', KEYS[1], 0)
if not head or tonumber(head) < id then
  redis.call('LPUSH', KEYS[1], ARGV[1])
  redis.call('LTRIM', KEYS[1], 0, cap - 1)
  return 1
end
local start, size = 0, 16
while start < cap do
  local stop = math.min(start + size, cap) - 1
  local ids = redis.call('LRANGE', KEYS[1], start, stop)
  for _, v in ipairs(ids) do
    local n = tonumber(v)
    if n == id then return 0 end
    if n < id then
      redis.call('LINSERT', KEYS[1], 'BEFORE', v, ARGV[1])
      redis.call('LTRIM', KEYS[1], 0, cap - 1)
      return 1
    end
  end
  if #ids < stop - start + 1 then
    if start + #ids < cap then
      redis.call('RPUSH', KEYS[1], ARGV[1])
      return 1
    end
    return 0
  end
  start, size = stop + 1, size * 4
end
return 0
