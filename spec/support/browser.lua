-- A page of clua.html checked in a real browser: Debian's chromium, headless.
-- Not a spec (no _spec in the name): spec/html_browser_spec.lua loads it,
-- and it runs on its own too:
--
--   build/clua spec/support/browser.lua PAGE.html [PNG_WIDTH PNG]
--
-- check(page) copies the page with two probes added: one first in <head>
-- that records every error and console.error, one that, once the page has
-- loaded, counts each figure's drawn points (`.point`: present, with finite
-- boxes inside the drawing, each with its tip) against the `data-points` the
-- renderer wrote, lists any element that would fetch something (src, href
-- other than "#..."), points at the first roofline point and reads the tip,
-- and writes all that as JSON into the DOM; chromium's --dump-dom gives it
-- back. Its console lines (--enable-logging=stderr) are kept as well.
local json = require("dkjson")
local files = require("clua.files")
local shell = require("spec.support.shell")

local M = {}

-- What chromium needs here as root, with no network and no session bus.
M.FLAGS = "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
  .. "--disable-component-update --disable-sync --hide-scrollbars"

local q, slurp, spit = shell.quote, shell.slurp, files.write

-- The chromium binary, or nil where there is none.
function M.chromium()
  for _, c in ipairs({ "chromium", "chromium-browser" }) do
    local p = io.popen("command -v " .. c .. " 2>/dev/null")
    local path = p:read("l")
    p:close()
    if path and path ~= "" then return path end
  end
end

-- Runs chromium on a file with extra flags in a fresh profile; returns stdout
-- and stderr.
local function chromium(path, extra)
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. q(dir))
  local errf = dir .. ".err"
  local p = io.popen(("timeout 90 %s %s --user-data-dir=%s %s %s 2>%s"):format(q(M.chromium()), M.FLAGS,
    q(dir .. "/profile"), extra, q("file://" .. path), q(errf)))
  local out = p:read("a")
  p:close()
  local err = slurp(errf) or ""
  os.execute("rm -rf " .. q(dir) .. " " .. q(errf))
  return out, err
end

local HEAD_PROBE = [[<script data-probe>window.__errors=[];addEventListener("error",function(e){__errors.push(String(e.message))});
window.__alerts=[];["alert","confirm","prompt"].forEach(function(f){window[f]=function(m){__alerts.push(f+": "+m);};});
(function(){var ce=console.error;console.error=function(){__errors.push([].join.call(arguments," "));
return ce.apply(console,arguments);};})();</script>]]

local END_PROBE = [[<script data-probe>addEventListener("load",function(){
var out={errors:__errors,alerts:__alerts,figures:[],external:[],tables:document.querySelectorAll("table").length,
scripts:document.querySelectorAll("script:not([data-probe])").length,handlers:[],
foreign:document.querySelectorAll("foreignObject,iframe,object,embed,img,image,use,a[href^=javascript]").length,
passwd:document.documentElement.outerHTML.indexOf("root:x:0"+":0")>=0,
noisy:document.querySelectorAll("td.noisy").length,better:document.querySelectorAll("td.better").length,
worse:document.querySelectorAll("td.worse").length,within:document.querySelectorAll("td.within").length};
document.querySelectorAll("figure.plot").forEach(function(f){
var svg=f.querySelector("svg"),pts=f.querySelectorAll(".point"),vb=svg.viewBox.baseVal,inside=0,tips=0;
pts.forEach(function(p){var b=p.getBBox();
if(isFinite(b.x)&&isFinite(b.y)&&b.x>=vb.x-1&&b.y>=vb.y-1&&b.x+b.width<=vb.x+vb.width+1&&b.y+b.height<=vb.y+vb.height+1)inside++;
if(p.getAttribute("data-tip"))tips++;});
var r=svg.getBoundingClientRect();
out.figures.push({id:f.id,expected:+f.getAttribute("data-points"),found:pts.length,inside:inside,tips:tips,
width:r.width,height:r.height});});
document.querySelectorAll("*").forEach(function(e){for(var i=0;i<e.attributes.length;i++){
var n=e.attributes[i].name;if(n.slice(0,2).toLowerCase()==="on")out.handlers.push(e.tagName+" "+n);}});
document.querySelectorAll("[src],[href]").forEach(function(e){var a=e.getAttribute("src")||e.getAttribute("href");
if(a.charAt(0)!=="#")out.external.push(a);});
var p=document.querySelector("#figure-roofline-experiments .point");
if(p){var r=p.getBoundingClientRect();p.dispatchEvent(new MouseEvent("mouseover",{bubbles:true,
clientX:r.x+r.width/2,clientY:r.y+r.height/2}));var t=document.getElementById("tip");
out.tip=t.textContent;out.tip_display=getComputedStyle(t).display;}
var pre=document.createElement("pre");pre.id="clua-check";pre.textContent=JSON.stringify(out);
document.body.appendChild(pre);});</script>]]

-- Checks a page in chromium: returns {errors=, alerts= (each alert, confirm
-- or prompt a script of the page called), scripts= (the page's own script
-- elements), handlers= (every on... attribute), foreign= (foreignObject,
-- iframe, object, embed, img, image, use elements and javascript: links),
-- passwd= (whether /etc/passwd's first line is in the page), figures={{id,
-- expected, found, inside, tips, width, height}, ...}, external=, tables=, noisy=,
-- better=, worse=, within=, tip=, tip_display=, console={lines}}, or nil and
-- what went wrong.
function M.check(page)
  local text = assert(slurp(page), "no page " .. page)
  local copy = os.tmpname() .. ".html"
  spit(copy, (text:gsub("<head>", function() return "<head>\n" .. HEAD_PROBE end, 1)
    :gsub("</body>", function() return END_PROBE .. "\n</body>" end, 1)))
  local dom, err = chromium(copy, "--enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom")
  os.remove(copy)
  local found = dom:match('<pre id="clua%-check">(.-)</pre>')
  if not found then return nil, "no probe output; chromium said: " .. err:sub(-2000) end
  found = found:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&nbsp;", "\194\160"):gsub("&amp;", "&")
  local r = assert(json.decode(found))
  r.console = {}
  for line in err:gmatch("[^\n]+") do
    if line:find("CONSOLE", 1, true) then r.console[#r.console + 1] = line end
  end
  return r
end

-- A screenshot of the page at `width` CSS pixels (a phone: 390), `height`
-- tall, to `png`. Returns true when the file was written.
function M.screenshot(page, png, width, height)
  os.remove(png)
  chromium(page, ("--window-size=%d,%d --screenshot=%s"):format(width, height or 2400, q(png)))
  return slurp(png) ~= nil
end

-- The page printed to PDF (its print styles): returns true when written.
function M.pdf(page, pdf)
  os.remove(pdf)
  chromium(page, "--no-pdf-header-footer --print-to-pdf=" .. q(pdf))
  return slurp(pdf) ~= nil
end

-- The probe of text_overlaps: every pair of text boxes (as drawn: rotation
-- and scaling applied) of one figure that overlap by more than a pixel each way.
local OVERLAP_PROBE = [[<script>addEventListener("load",function(){
var out={figures:0,texts:0,overlaps:[]};
document.querySelectorAll("figure.plot svg").forEach(function(svg){out.figures++;
var f=svg.closest("figure"),boxes=[];
svg.querySelectorAll("text").forEach(function(t){if(!t.textContent.trim())return;
var r=t.getBoundingClientRect();if(r.width>0&&r.height>0)boxes.push({t:t.textContent,r:r});});
out.texts+=boxes.length;
for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++){var a=boxes[i].r,b=boxes[j].r;
var w=Math.min(a.right,b.right)-Math.max(a.left,b.left),h=Math.min(a.bottom,b.bottom)-Math.max(a.top,b.top);
if(w>1&&h>1)out.overlaps.push(f.id+": '"+boxes[i].t+"' / '"+boxes[j].t+"'");}});
var pre=document.createElement("pre");pre.id="clua-overlap";pre.textContent=JSON.stringify(out);
document.body.appendChild(pre);});</script>]]

-- The text boxes that overlap in the page's figures, as chromium draws them
-- at `width` CSS pixels (default 1200): returns {figures=, texts=,
-- overlaps={"FIGURE: 'a' / 'b'", ...}}, or nil and what went wrong.
function M.text_overlaps(page, width)
  local text = assert(slurp(page), "no page " .. page)
  local copy = os.tmpname() .. ".html"
  spit(copy, (text:gsub("</body>", function() return OVERLAP_PROBE .. "\n</body>" end, 1)))
  local dom, err = chromium(copy, ("--window-size=%d,2000 --virtual-time-budget=10000 --dump-dom"):format(
    width or 1200))
  os.remove(copy)
  local found = dom:match('<pre id="clua%-overlap">(.-)</pre>')
  if not found then return nil, "no probe output; chromium said: " .. err:sub(-2000) end
  found = found:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&nbsp;", "\194\160"):gsub("&amp;", "&")
  return (assert(json.decode(found)))
end

if arg and arg[0] and arg[0]:match("browser%.lua$") then
  local r, why = M.check(assert(arg[1], "usage: browser.lua PAGE.html [WIDTH PNG]"))
  if not r then io.stderr:write(why, "\n") os.exit(1) end
  print(json.encode(r, { indent = true }))
  if arg[3] then M.screenshot(arg[1], arg[3], tonumber(arg[2])) end
end

return M
