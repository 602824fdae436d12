-- botwarden.lua: HAProxy (2.5 or later, built with Lua) asks a running
-- `botwarden serve` for the verdict on each request, as nginx's
-- auth_request does. Load it and call it in a frontend:
--
--   global
--       lua-load /etc/haproxy/botwarden.lua
--   frontend web
--       http-request lua.botwarden http://127.0.0.1:8080/verify
--
-- The service must trust HAProxy's address (`trusted_proxies`): the
-- client's address is sent in X-Forwarded-For, from the variable
-- txn.botwarden_client when set, else the connection's source.
--
-- It sets, for the rules after it:
--   txn.bot_status   the service's status: 403 for a spoofed crawler in
--                    enforce mode, 200 otherwise; 0 when it could not be
--                    asked (the request goes on: fail open)
--   txn.bot_verdict  verified, spoofed, unknown, unverifiable, not-a-bot,
--                    or error when the service could not be asked
--   txn.bot_name     the bot's name, or -
--   txn.bot_method   how it was verified (fcrdns, ip-list, ...), or -

-- Milliseconds one ask may take.
local timeout_ms = 2000

-- The first value of a response header, or "-".
local function first(headers, name)
  local v = headers and headers[name]
  if type(v) == "table" then
    v = v[0] or v[1]
  end
  if type(v) ~= "string" or v == "" then
    return "-"
  end
  return v
end

local function verify(txn, url)
  local client = txn:get_var("txn.botwarden_client") or txn.f:src()
  local ua = txn.f:req_fhdr("user-agent") or ""
  local hc = core.httpclient()
  local ok, res = pcall(hc.get, hc, {
    url = url,
    headers = {
      ["user-agent"] = { ua },
      ["x-forwarded-for"] = { client },
    },
    timeout = timeout_ms,
  })
  -- No answer, or one not from the service (HAProxy's own 503 when it
  -- cannot connect): the request goes on.
  if not ok or res == nil or res.status == nil or first(res.headers, "x-bot-verdict") == "-" then
    txn:set_var("txn.bot_status", 0)
    txn:set_var("txn.bot_verdict", "error")
    txn:set_var("txn.bot_name", "-")
    txn:set_var("txn.bot_method", "-")
    return
  end
  txn:set_var("txn.bot_status", res.status)
  txn:set_var("txn.bot_verdict", first(res.headers, "x-bot-verdict"))
  txn:set_var("txn.bot_name", first(res.headers, "x-bot-name"))
  txn:set_var("txn.bot_method", first(res.headers, "x-bot-method"))
end

core.register_action("botwarden", { "http-req" }, verify, 1)
