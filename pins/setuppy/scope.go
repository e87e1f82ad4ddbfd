package setuppy

import (
	"strings"

	"github.com/pinbot-dev/pinbot/internal/pyast"
)

// A scope is the namespace of the module or of one function (or class)
// body: the names its statements bind, and the statements that add to the
// lists and dicts those names hold.
type scope struct {
	parent *scope // the enclosing function or the module; nil for the module
	name   string // the function's name; "" for the module
	binds  map[string][]binding
	muts   map[string][]mutation
	global map[string]bool // names a function declares global
	class  bool            // a class body
}

func newScope(parent *scope, name string, class bool) *scope {
	return &scope{parent: parent, name: name, class: class, binds: map[string][]binding{}, muts: map[string][]mutation{}, global: map[string]bool{}}
}

// A binding is one statement that binds a name. Value is what it assigns,
// for a plain assignment (NAME = value); otherwise how says how the name is
// bound ("imported from x"), and its value is not read.
type binding struct {
	value pyast.Expr
	how   string
	def   *pyast.FunctionDef // for a def: the function
	with  pyast.Expr         // for with ... as name: the context manager
	line  int
	path  []branch // the if statements it lies in, outermost first
}

// A branch is one arm of an if statement: 0 its body, 1 its else (an elif
// is an if alone in the else).
type branch struct {
	stmt *pyast.If
	arm  int
}

// A mutation is a statement that adds to the list or dict a name holds:
// NAME.append(x), NAME.insert(i, x), NAME.extend(xs), NAME += xs,
// NAME.update(d), NAME[key] = value.
type mutation struct {
	op    string // "append", "insert", "extend", "+=", "update", "[]"
	key   pyast.Expr
	value pyast.Expr
	kw    []*pyast.Keyword // update's keyword arguments
	line  int
}

// A call is a call found anywhere in the file, with the scope it is made in:
// a candidate for setup().
type call struct {
	c     *pyast.Call
	scope *scope
}

// collector walks the statements of a file once, filling the scopes and
// listing the calls and imports.
type collector struct {
	x       *extractor
	module  *scope
	calls   []call
	imports []pyast.Stmt
}

// stmts records what the statements of scope s bind. path is the if arms
// they lie in; loop, when not "", names the loop or try statement they lie
// in, which makes every name they bind decided at run time.
func (c *collector) stmts(body []pyast.Stmt, s *scope, path []branch, loop string) {
	for _, st := range body {
		c.stmt(st, s, path, loop)
	}
}

func (c *collector) stmt(st pyast.Stmt, s *scope, path []branch, loop string) {
	line := c.x.line(st.Pos())
	bind := func(name string, b binding) {
		b.line, b.path = line, path
		if loop != "" && b.how == "" {
			b.value, b.how = nil, "assigned inside "+loop
		}
		c.bind(s, name, b)
	}
	within := func(what string) string {
		if loop != "" {
			return loop // the outermost
		}
		return what
	}
	switch st := st.(type) {
	case *pyast.FunctionDef:
		bind(st.Name, binding{how: "a function", def: st})
		fs := newScope(c.enclosing(s), st.Name, false)
		c.stmts(st.Body, fs, nil, "")
		return
	case *pyast.ClassDef:
		bind(st.Name, binding{how: "a class"})
		c.stmts(st.Body, newScope(s, st.Name, true), nil, "")
		return
	case *pyast.If:
		c.exprs(st.Test, s, bind)
		c.stmts(st.Body, s, extend(path, branch{st, 0}), loop)
		c.stmts(st.Orelse, s, extend(path, branch{st, 1}), loop)
		return
	case *pyast.For:
		c.exprs(st.Iter, s, bind)
		for _, n := range targetNames(st.Target) {
			bind(n, binding{how: "the target of a for loop"})
		}
		in := within("a for loop")
		c.stmts(st.Body, s, path, in)
		c.stmts(st.Orelse, s, path, in)
		return
	case *pyast.While:
		c.exprs(st.Test, s, bind)
		in := within("a while loop")
		c.stmts(st.Body, s, path, in)
		c.stmts(st.Orelse, s, path, in)
		return
	case *pyast.Try:
		in := within("a try statement")
		c.stmts(st.Body, s, path, in)
		for _, h := range st.Handlers {
			if h.Name != "" {
				bind(h.Name, binding{how: "bound by an except clause"})
			}
			c.stmts(h.Body, s, path, in)
		}
		c.stmts(st.Orelse, s, path, in)
		c.stmts(st.Finalbody, s, path, in)
		return
	case *pyast.With:
		// A with body runs once, as straight-line code does.
		for _, it := range st.Items {
			c.exprs(it.ContextExpr, s, bind)
			for _, n := range targetNames(it.OptionalVars) {
				bind(n, binding{how: "bound by with ... as", with: it.ContextExpr})
			}
		}
		c.stmts(st.Body, s, path, loop)
		return
	case *pyast.Match:
		c.exprs(st.Subject, s, bind)
		in := within("a match statement")
		for _, mc := range st.Cases {
			c.stmts(mc.Body, s, path, in)
		}
		return
	case *pyast.Import, *pyast.ImportFrom:
		c.imports = append(c.imports, st)
		how := "imported"
		if f, ok := st.(*pyast.ImportFrom); ok {
			how = "imported from " + strings.Repeat(".", f.Level) + f.Module
		}
		for _, n := range importedNames(st) {
			bind(n, binding{how: how})
		}
		return
	case *pyast.Global:
		for _, n := range st.Names {
			s.global[n] = true
		}
		return
	case *pyast.Assign:
		for _, t := range st.Targets {
			switch t := t.(type) {
			case *pyast.Name:
				bind(t.Id, binding{value: st.Value})
			case *pyast.Subscript:
				if n, ok := t.Value.(*pyast.Name); ok {
					c.mutate(s, n.Id, mutation{op: "[]", key: t.Slice, value: st.Value, line: line})
				}
			default:
				for _, n := range targetNames(t) {
					bind(n, binding{how: "assigned by unpacking"})
				}
			}
		}
	case *pyast.AnnAssign:
		if n, ok := st.Target.(*pyast.Name); ok && st.Value != nil {
			bind(n.Id, binding{value: st.Value})
		}
	case *pyast.AugAssign:
		if n, ok := st.Target.(*pyast.Name); ok {
			if st.Op == pyast.Add {
				c.mutate(s, n.Id, mutation{op: "+=", value: st.Value, line: line})
			} else {
				bind(n.Id, binding{how: "changed by " + opText(st.Op) + "="})
			}
		}
	case *pyast.Delete:
		for _, t := range st.Targets {
			for _, n := range targetNames(t) {
				bind(n, binding{how: "deleted"})
			}
		}
	case *pyast.ExprStmt:
		if m, name, ok := methodMutation(st.Value, line); ok {
			c.mutate(s, name, m)
		}
	}
	// A simple statement: its calls, and names bound by :=.
	c.exprs(st, s, bind)
}

// exprs lists the calls in n and records the names its := expressions bind.
func (c *collector) exprs(n pyast.Node, s *scope, bind func(string, binding)) {
	pyast.Inspect(n, func(n pyast.Node) bool {
		switch n := n.(type) {
		case *pyast.Call:
			c.calls = append(c.calls, call{c: n, scope: s})
		case *pyast.NamedExpr:
			bind(n.Target.Id, binding{how: "bound by :="})
		case *pyast.Lambda:
			return false // its own scope, and never setup()'s arguments
		}
		return true
	})
}

// bind records b for name in s, or in the module for a name the function s
// declares global.
func (c *collector) bind(s *scope, name string, b binding) {
	if s.global[name] {
		b.value, b.how, b.path = nil, "assigned by function "+s.name+" (global "+name+")", nil
		s = c.module
	}
	s.binds[name] = append(s.binds[name], b)
}

func (c *collector) mutate(s *scope, name string, m mutation) {
	if s.global[name] {
		s = c.module
	}
	s.muts[name] = append(s.muts[name], m)
}

// enclosing returns the scope a function defined in s looks names up in:
// s itself, or for a method the scope around its class (a class body is
// not visible to the functions defined in it).
func (c *collector) enclosing(s *scope) *scope {
	for s.class {
		s = s.parent
	}
	return s
}

// methodMutation reports whether e is NAME.append(x), NAME.insert(i, x),
// NAME.extend(xs) or NAME.update(...), and returns it as a mutation of
// NAME.
func methodMutation(e pyast.Expr, line int) (mutation, string, bool) {
	cl, ok := e.(*pyast.Call)
	if !ok {
		return mutation{}, "", false
	}
	a, ok := cl.Func.(*pyast.Attribute)
	if !ok {
		return mutation{}, "", false
	}
	n, ok := a.Value.(*pyast.Name)
	if !ok {
		return mutation{}, "", false
	}
	m := mutation{op: a.Attr, line: line}
	switch {
	case (a.Attr == "append" || a.Attr == "extend") && len(cl.Args) == 1 && len(cl.Keywords) == 0:
		m.value = cl.Args[0]
	case a.Attr == "insert" && len(cl.Args) == 2 && len(cl.Keywords) == 0:
		m.value = cl.Args[1]
	case a.Attr == "update" && len(cl.Args) <= 1:
		if len(cl.Args) == 1 {
			m.value = cl.Args[0]
		}
		m.kw = cl.Keywords
	default:
		return mutation{}, "", false
	}
	if _, ok := m.value.(*pyast.Starred); ok {
		return mutation{}, "", false
	}
	return m, n.Id, true
}

// targetNames returns the names an assignment target binds.
func targetNames(t pyast.Expr) []string {
	var out []string
	pyast.Inspect(t, func(n pyast.Node) bool {
		switch n := n.(type) {
		case *pyast.Name:
			out = append(out, n.Id)
		case *pyast.Subscript, *pyast.Attribute:
			return false // binds no name
		}
		return true
	})
	return out
}

// importedNames returns the names an import statement binds.
func importedNames(st pyast.Stmt) []string {
	var out []string
	switch st := st.(type) {
	case *pyast.Import:
		for _, a := range st.Names {
			switch {
			case a.AsName != "":
				out = append(out, a.AsName)
			default:
				out = append(out, topName(a.Name))
			}
		}
	case *pyast.ImportFrom:
		for _, a := range st.Names {
			switch {
			case a.AsName != "":
				out = append(out, a.AsName)
			case a.Name != "*":
				out = append(out, a.Name)
			}
		}
	}
	return out
}

// topName returns the first name of a dotted name: "a" of "a.b.c".
func topName(dotted string) string {
	for i := 0; i < len(dotted); i++ {
		if dotted[i] == '.' {
			return dotted[:i]
		}
	}
	return dotted
}

func extend(path []branch, b branch) []branch {
	return append(path[:len(path):len(path)], b)
}

// exclusive reports whether no run of the file executes both a and b: they
// lie in different arms of the same if statement.
func exclusive(a, b []branch) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k].stmt != b[k].stmt {
			return false
		}
		if a[k].arm != b[k].arm {
			return true
		}
	}
	return false
}

var opTexts = map[pyast.Op]string{
	pyast.Sub: "-", pyast.Mult: "*", pyast.MatMult: "@", pyast.Div: "/", pyast.Mod: "%", pyast.Pow: "**",
	pyast.LShift: "<<", pyast.RShift: ">>", pyast.BitOr: "|", pyast.BitXor: "^", pyast.BitAnd: "&", pyast.FloorDiv: "//",
}

func opText(op pyast.Op) string {
	if s, ok := opTexts[op]; ok {
		return s
	}
	return op.String()
}
