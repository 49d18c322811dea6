local before, after, n, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if after > 0 then
  local ids = redis.call('LRANGE', KEYS[1], 0, limit - 1)
  local k = 0
  for i, v in ipairs(ids) do
    if tonumber(v) > after then k = i else break end
  end
  local out = {}
  for i = math.max(1, k - n + 1), k do out[#out + 1] = ids[i] end
  return out
end
if before > 0 then
  local pos = redis.call('LPOS', KEYS[1], ARGV[1], 'MAXLEN', limit)
  if pos then return redis.call('LRANGE', KEYS[1], pos + 1, pos + n) end
  local out = {}
  for _, v in ipairs(redis.call('LRANGE', KEYS[1], 0, limit - 1)) do
    if tonumber(v) < before then
      out[#out + 1] = v
      if #out == n then break end
    end
  end
  return out
end
return redis.call('LRANGE', KEYS[1], 0, n - 1)
