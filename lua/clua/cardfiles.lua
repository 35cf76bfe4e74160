--- clua.cardfiles: where the report card's files go, and the line that
-- names them.
--
-- The card (recipes/report.lua) writes a Markdown page, its JSON, its web
-- page and a folder of each recipe's JSON, log and plots. They all go
-- beside `--out`, or beside `--html FILE` when no `--out` is given, and only
-- into the current folder when that is where the path given points (or when
-- neither is given: `report.md`).
-- @module clua.cardfiles
local cardfiles = {}

--- The card's paths from the options out and html.
-- out is the Markdown file (card.md; a name with no extension gets .md).
-- Without it the files go beside html (x/card.html gives x/card.md), and
-- without either they are report.md and its kin. An html of none: no page.
-- In a cluster run (`rank` given) each rank's card is STEM-rankN.md and its
-- kin (its page STEM-rankN.html unless html names one), and STEM is the
-- cluster report's (`cluster`).
-- @tparam ?string out the option --out
-- @tparam ?string html the option --html
-- @tparam ?int rank the rank of a cluster run
-- @treturn table {stem=, md=, json=, html= (nil for none), dir= (the folder of the recipes' files), cluster=}
function cardfiles.place(out, html, rank)
  local stem, md
  if out then
    local base = out:match("[^/]*$")
    if base:match(".%.%w+$") then -- card.md, card.markdown
      md, stem = out, out:gsub("%.%w+$", "")
    else
      md, stem = out .. ".md", out
    end
  elseif html and html ~= "none" then
    stem = html:gsub("%.html?$", "")
    md = stem .. ".md"
  else
    stem, md = "report", "report.md"
  end
  local page = html ~= "none" and (html or stem .. ".html") or nil
  if rank then
    local cluster = stem
    stem = ("%s-rank%d"):format(stem, rank)
    return { stem = stem, md = stem .. ".md", json = stem .. ".json", dir = stem .. "-files", cluster = cluster,
      html = page and (html or stem .. ".html") }
  end
  return { stem = stem, md = md, json = stem .. ".json", dir = stem .. "-files", html = page }
end

--- The number of plain files in folder `dir` (0 when there is none).
-- @string dir
-- @treturn int
function cardfiles.count(dir)
  -- a relative folder starting with "-" (--out=-x) is a path, not one of find's options
  if dir:match("^%-") then dir = "./" .. dir end
  local ls = io.popen("find " .. require("clua.proc").quote(dir) .. " -maxdepth 1 -type f 2>/dev/null")
  local n = 0
  for _ in ls:lines() do n = n + 1 end
  ls:close()
  return n
end

--- The words that name every file the card wrote: "a.md, a.json, a.html
-- and the 51 files of a-files/".
-- @tparam {string,...} paths the files written
-- @string dir the folder of the recipes' files
-- @treturn string
function cardfiles.named(paths, dir)
  local n = cardfiles.count(dir)
  local list = table.move(paths, 1, #paths, 1, {})
  if n > 0 then list[#list + 1] = ("the %d file%s of %s/"):format(n, n == 1 and "" or "s", dir) end
  if #list == 1 then return list[1] end
  return table.concat(list, ", ", 1, #list - 1) .. " and " .. list[#list]
end

return cardfiles
