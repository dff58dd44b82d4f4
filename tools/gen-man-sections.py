# Generates the @groups and built-in sections of man/sbx.policy.5 from the code.
import re, glob, os, sys, textwrap
src = sys.argv[1]
c = open(f"{src}/src/jail/scgroups.c").read()
def esc(s): return s.replace("\\", "\\e").replace("-", "\\-")
def cap(s): return s if "_" in s.split()[0] else s[0].upper() + s[1:]
def wrap(s): return "\n".join(textwrap.wrap(s, 72, break_long_words=False, break_on_hyphens=False))
g = []
dflt = c[c.index("default_syscalls[] = {"):]
dflt = dflt[:dflt.index("NULL,")]
cats = re.findall(r'/\* (.*?) \*/\n((?:\s*"[^/]*?",?\s*)+)', dflt)
tbl = c[c.index("sc_groups[] = {"):c.index("};", c.index("sc_groups[] = {"))]
groups = re.findall(r'\{\s*"(@[a-z0-9-]+)",\s*(default_syscalls|LIST\((.*?)\)),\s*"(.*?)"\s*\}', tbl, re.S)
for name, _, lst, why in groups:
    g.append(".TP\n.B " + esc(name))
    g.append(wrap(esc(cap(why)) + "."))
    if name == "@default":
        g.append("By kind:")
        g.append(".RS")
        for cat, names in cats:
            ns = re.findall(r'"([a-z0-9_]+)"', names)
            g.append(".TP\n.I " + esc(cat.split(" (")[0].split(";")[0].split(":")[0]))
            g.append(wrap(", ".join(esc(n) for n in ns) + "."))
        g.append(".RE")
    else:
        ns = re.findall(r'"([a-z0-9_]+)"', lst)
        g.append(".br\n" + wrap(", ".join(esc(n) for n in ns) + "."))
b = []
for f in sorted(glob.glob(f"{src}/policy/*.policy")):
    t = open(f).read()
    name = os.path.basename(f)[:-7]
    desc = re.search(r'^description:\s*"(.*)"', t, re.M).group(1)
    inc = re.findall(r'^include:\s*"(.*)"', t, re.M)
    mounts = re.findall(r'^mount \{ dst: "([^"]+)" type: (\w+)(.*?)\}', t, re.M)
    ext = re.search(r'extensions:\s*\[(.*?)\]', t)
    run = re.search(r'\brun:\s*\[(.*?)\]', t)
    comp = re.search(r'compile:\s*\[(.*?)\]', t)
    b.append(".TP\n.B " + esc(name))
    line = esc(cap(desc)) + (("; includes " + ", ".join(esc(i) for i in inc)) if inc else "") + "."
    b.append(wrap(line))
    if mounts:
        ms = []
        for dst, typ, rest in mounts:
            extra = []
            if 'rw: true' in rest: extra.append("writable")
            m = re.search(r'size_mb: (\d+)', rest)
            if m: extra.append(m.group(1) + " MiB")
            if 'optional: true' in rest: extra.append("optional")
            if typ == "BIND": extra.insert(0, "from " + re.search(r'src: "([^"]+)"', rest).group(1))
            ms.append(dst + " " + typ + (" (" + ", ".join(extra) + ")" if extra else ""))
        b.append(wrap(esc("Mounts: " + "; ".join(ms) + ".")))
    if run:
        words = lambda m: " ".join(w.strip().strip('"') for w in m.group(1).split(","))
        s = ""
        if comp: s += "Compiles with \\fB" + esc(words(comp)) + "\\fR, then runs "
        else: s += "Runs "
        s += "\\fB" + esc(words(run)) + "\\fR"
        if ext: s += "; extensions " + ", ".join(esc(e.strip().strip('"')) for e in ext.group(1).split(","))
        b.append(wrap(s + "."))
def splice(page, begin, end, body):
    i = page.index(begin); i = page.index("\n", i) + 1
    j = page.index(end)
    return page[:i] + body + "\n" + page[j:]
p = f"{src}/man/sbx.policy.5"
page = open(p).read()
page = splice(page, ".\\\" GROUPS-BEGIN", ".\\\" GROUPS-END", "\n".join(g))
page = splice(page, ".\\\" BUILTINS-BEGIN", ".\\\" BUILTINS-END", "\n".join(b))
open(p, "w").write(page)
