-- bench/imix-validate: tables, strings and closures in Lua
local t = {}
for i = 1, 200000 do t[i] = (i * 7919) % 100003 end
table.sort(t)
local words = {}
for i = 1, 100000 do
  local w = string.format("w%d_%d", i % 977, i % 13)
  words[w] = (words[w] or 0) + 1
end
local s = 0
for k, v in pairs(words) do s = s + #k * v end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(s, fib(24), t[1], t[#t])
