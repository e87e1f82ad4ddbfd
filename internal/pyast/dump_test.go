package pyast

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// dumpCPython prints mod in the canonical form testdata/dump.py prints
// CPython's tree in: one line per node in pre-order, children in the order
// of CPython's _fields, "nil" for an absent child, positions as CPython
// 3.11 gives them (0-based byte columns, the byte-order mark not counted;
// none for the literal parts of f-strings, whose positions 3.11 does not
// compute).
func dumpCPython(mod *Module, src []byte) string {
	d := &dumper{file: mod.File, src: src, bom: len(src) >= 3 && string(src[:3]) == "\xef\xbb\xbf"}
	d.node(mod, false)
	return d.sb.String()
}

type dumper struct {
	sb   strings.Builder
	file *File
	src  []byte
	bom  bool
}

func (d *dumper) pos(from, to Pos) string {
	a, b := d.file.Position(from), d.file.Position(to)
	ca, cb := a.Column-1, b.Column-1
	if d.bom && a.Line == 1 {
		ca -= 3
	}
	if d.bom && b.Line == 1 {
		cb -= 3
	}
	return fmt.Sprintf("%d:%d-%d:%d", a.Line, ca, b.Line, cb)
}

// id is an identifier as CPython stores it: NFKC-normalized.
func id(s string) string {
	return norm.NFKC.String(s)
}

func optID(s string) string {
	if s == "" {
		return "None"
	}
	return id(s)
}

func constValue(c *Constant) string {
	switch c.Kind {
	case ConstNone:
		return "None"
	case ConstTrue:
		return "True"
	case ConstFalse:
		return "False"
	case ConstEllipsis:
		return "Ellipsis"
	case ConstStr:
		return "str:" + hex.EncodeToString([]byte(c.Value))
	case ConstBytes:
		return "bytes:" + hex.EncodeToString([]byte(c.Value))
	case ConstInt:
		s := strings.ReplaceAll(c.Value, "_", "")
		base := 10
		if len(s) > 1 && s[0] == '0' {
			switch s[1] | 0x20 {
			case 'x':
				base, s = 16, s[2:]
			case 'o':
				base, s = 8, s[2:]
			case 'b':
				base, s = 2, s[2:]
			}
		}
		n, ok := new(big.Int).SetString(s, base)
		if !ok {
			return "int:?" + c.Value
		}
		return "int:" + n.String()
	case ConstFloat, ConstImag:
		s := strings.ReplaceAll(strings.TrimRight(c.Value, "jJ"), "_", "")
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(f, 0) {
			return "float:?" + c.Value
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], math.Float64bits(f))
		if c.Kind == ConstImag {
			return "imag:" + hex.EncodeToString(b[:])
		}
		return "float:" + hex.EncodeToString(b[:])
	}
	return "?"
}

func (d *dumper) line(kind, pos string, fields ...string) {
	d.sb.WriteString(kind)
	d.sb.WriteByte(' ')
	d.sb.WriteString(pos)
	for _, f := range fields {
		d.sb.WriteByte(' ')
		d.sb.WriteString(f)
	}
	d.sb.WriteByte('\n')
}

func (d *dumper) opt(n Node, structural bool) {
	if n == nil || isNilNode(n) {
		d.sb.WriteString("nil\n")
		return
	}
	d.node(n, structural)
}

func (d *dumper) exprs(xs []Expr, structural bool) {
	for _, x := range xs {
		d.opt(x, structural)
	}
}

func (d *dumper) stmts(xs []Stmt) {
	for _, x := range xs {
		d.node(x, false)
	}
}

func ops(os []Op) string {
	var s []string
	for _, o := range os {
		s = append(s, o.String())
	}
	return strings.Join(s, ",")
}

func b2i(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (d *dumper) node(n Node, structural bool) {
	pos := "-"
	if !structural {
		pos = d.pos(n.Pos(), n.End())
	}
	switch n := n.(type) {
	case *Module:
		d.line("Module", "-")
		d.stmts(n.Body)
	case *FunctionDef:
		kind := "FunctionDef"
		if n.IsAsync {
			kind = "AsyncFunctionDef"
		}
		d.line(kind, d.pos(n.DefPos, n.End()), "name="+id(n.Name))
		d.node(n.Args, false)
		d.stmts(n.Body)
		d.exprs(n.DecoratorList, false)
		d.opt(n.Returns, false)
	case *ClassDef:
		d.line("ClassDef", d.pos(n.ClassPos, n.End()), "name="+id(n.Name))
		d.exprs(n.Bases, false)
		for _, k := range n.Keywords {
			d.node(k, false)
		}
		d.stmts(n.Body)
		d.exprs(n.DecoratorList, false)
	case *Return:
		d.line("Return", pos)
		d.opt(n.Value, false)
	case *Delete:
		d.line("Delete", pos)
		d.exprs(n.Targets, false)
	case *Assign:
		d.line("Assign", pos)
		d.exprs(n.Targets, false)
		d.opt(n.Value, false)
	case *TypeAlias:
		d.line("TypeAlias", pos)
		d.node(n.Name, false)
		for _, tp := range n.TypeParams {
			d.node(tp, false)
		}
		d.opt(n.Value, false)
	case *AugAssign:
		d.line("AugAssign", pos, "op="+n.Op.String())
		d.opt(n.Target, false)
		d.opt(n.Value, false)
	case *AnnAssign:
		d.line("AnnAssign", pos, "simple="+b2i(n.Simple))
		d.opt(n.Target, false)
		d.opt(n.Annotation, false)
		d.opt(n.Value, false)
	case *For:
		kind := "For"
		if n.IsAsync {
			kind = "AsyncFor"
		}
		d.line(kind, pos)
		d.opt(n.Target, false)
		d.opt(n.Iter, false)
		d.stmts(n.Body)
		d.stmts(n.Orelse)
	case *While:
		d.line("While", pos)
		d.opt(n.Test, false)
		d.stmts(n.Body)
		d.stmts(n.Orelse)
	case *If:
		d.line("If", pos)
		d.opt(n.Test, false)
		d.stmts(n.Body)
		d.stmts(n.Orelse)
	case *With:
		kind := "With"
		if n.IsAsync {
			kind = "AsyncWith"
		}
		d.line(kind, pos)
		for _, it := range n.Items {
			d.node(it, false)
		}
		d.stmts(n.Body)
	case *Match:
		d.line("Match", pos)
		d.opt(n.Subject, false)
		for _, c := range n.Cases {
			d.node(c, false)
		}
	case *Raise:
		d.line("Raise", pos)
		d.opt(n.Exc, false)
		d.opt(n.Cause, false)
	case *Try:
		kind := "Try"
		if n.IsStar {
			kind = "TryStar"
		}
		d.line(kind, pos)
		d.stmts(n.Body)
		for _, h := range n.Handlers {
			d.node(h, false)
		}
		d.stmts(n.Orelse)
		d.stmts(n.Finalbody)
	case *Assert:
		d.line("Assert", pos)
		d.opt(n.Test, false)
		d.opt(n.Msg, false)
	case *Import:
		d.line("Import", pos)
		for _, a := range n.Names {
			d.node(a, false)
		}
	case *ImportFrom:
		mod := "None"
		if n.Module != "" {
			mod = id(n.Module)
		}
		d.line("ImportFrom", pos, "module="+mod, "level="+strconv.Itoa(n.Level))
		for _, a := range n.Names {
			d.node(a, false)
		}
	case *Global:
		d.line("Global", pos, "names="+id(strings.Join(n.Names, ",")))
	case *Nonlocal:
		d.line("Nonlocal", pos, "names="+id(strings.Join(n.Names, ",")))
	case *ExprStmt:
		d.line("Expr", pos)
		d.opt(n.Value, false)
	case *Pass:
		d.line("Pass", pos)
	case *Break:
		d.line("Break", pos)
	case *Continue:
		d.line("Continue", pos)

	case *BoolOp:
		d.line("BoolOp", pos, "op="+n.Op.String())
		d.exprs(n.Values, false)
	case *NamedExpr:
		d.line("NamedExpr", pos)
		d.node(n.Target, false)
		d.opt(n.Value, false)
	case *BinOp:
		d.line("BinOp", pos, "op="+n.Op.String())
		d.opt(n.Left, false)
		d.opt(n.Right, false)
	case *UnaryOp:
		d.line("UnaryOp", pos, "op="+n.Op.String())
		d.opt(n.Operand, false)
	case *Lambda:
		d.line("Lambda", pos)
		d.node(n.Args, false)
		d.opt(n.Body, false)
	case *IfExp:
		d.line("IfExp", pos)
		d.opt(n.Test, false)
		d.opt(n.Body, false)
		d.opt(n.Orelse, false)
	case *Dict:
		d.line("Dict", pos)
		d.exprs(n.Keys, false)
		d.exprs(n.Values, false)
	case *Set:
		d.line("Set", pos)
		d.exprs(n.Elts, false)
	case *ListComp:
		d.line("ListComp", pos)
		d.opt(n.Elt, false)
		d.comps(n.Generators)
	case *SetComp:
		d.line("SetComp", pos)
		d.opt(n.Elt, false)
		d.comps(n.Generators)
	case *GeneratorExp:
		d.line("GeneratorExp", pos)
		d.opt(n.Elt, false)
		d.comps(n.Generators)
	case *DictComp:
		d.line("DictComp", pos)
		d.opt(n.Key, false)
		d.opt(n.Value, false)
		d.comps(n.Generators)
	case *Await:
		d.line("Await", pos)
		d.opt(n.Value, false)
	case *Yield:
		d.line("Yield", pos)
		d.opt(n.Value, false)
	case *YieldFrom:
		d.line("YieldFrom", pos)
		d.opt(n.Value, false)
	case *Compare:
		d.line("Compare", pos, "ops="+ops(n.Ops))
		d.opt(n.Left, false)
		d.exprs(n.Comparators, false)
	case *Call:
		d.line("Call", pos)
		d.opt(n.Func, false)
		d.exprs(n.Args, false)
		for _, k := range n.Keywords {
			d.node(k, false)
		}
	case *FormattedValue:
		conv := "-1"
		if n.Conversion != 0 {
			conv = strconv.Itoa(int(n.Conversion))
		}
		d.line("FormattedValue", pos, "conversion="+conv)
		if t, ok := n.Value.(*Tuple); ok && len(t.Elts) > 0 && t.Pos() == t.Elts[0].Pos() {
			// Python 3.11 parses a replacement field's text in parentheses,
			// so a tuple without its own spans from the { to just after its
			// text (3.12 gives the tuple's own span).
			end := int(t.End())
			for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t' || d.src[end] == '\n') {
				end++
			}
			d.line("Tuple", d.pos(n.Pos(), Pos(end+1)), "ctx="+t.Ctx.String())
			d.exprs(t.Elts, false)
		} else {
			d.opt(n.Value, false)
		}
		d.opt(n.FormatSpec, true)
	case *JoinedStr:
		d.line("JoinedStr", pos)
		d.exprs(n.Values, true)
	case *Constant:
		d.line("Constant", pos, "value="+constValue(n))
	case *Attribute:
		d.line("Attribute", pos, "attr="+id(n.Attr), "ctx="+n.Ctx.String())
		d.opt(n.Value, false)
	case *Subscript:
		d.line("Subscript", pos, "ctx="+n.Ctx.String())
		d.opt(n.Value, false)
		d.opt(n.Slice, false)
	case *Starred:
		d.line("Starred", pos, "ctx="+n.Ctx.String())
		d.opt(n.Value, false)
	case *Name:
		d.line("Name", pos, "id="+id(n.Id), "ctx="+n.Ctx.String())
	case *List:
		d.line("List", pos, "ctx="+n.Ctx.String())
		d.exprs(n.Elts, false)
	case *Tuple:
		d.line("Tuple", pos, "ctx="+n.Ctx.String())
		d.exprs(n.Elts, false)
	case *Slice:
		d.line("Slice", pos)
		d.opt(n.Lower, false)
		d.opt(n.Upper, false)
		d.opt(n.Step, false)

	case *Comprehension:
		d.line("comprehension", "-", "is_async="+b2i(n.IsAsync))
		d.opt(n.Target, false)
		d.opt(n.Iter, false)
		d.exprs(n.Ifs, false)
	case *ExceptHandler:
		d.line("ExceptHandler", pos, "name="+optID(n.Name))
		d.opt(n.Type, false)
		d.stmts(n.Body)
	case *Arguments:
		d.line("arguments", "-")
		d.args(n.PosOnlyArgs)
		d.args(n.Args)
		if n.VarArg != nil {
			d.node(n.VarArg, false)
		} else {
			d.sb.WriteString("nil\n")
		}
		d.args(n.KwOnlyArgs)
		d.exprs(n.KwDefaults, false)
		if n.KwArg != nil {
			d.node(n.KwArg, false)
		} else {
			d.sb.WriteString("nil\n")
		}
		d.exprs(n.Defaults, false)
	case *Arg:
		d.line("arg", pos, "arg="+id(n.Arg))
		d.opt(n.Annotation, false)
	case *Keyword:
		d.line("keyword", pos, "arg="+optID(n.Arg))
		d.opt(n.Value, false)
	case *Alias:
		name := n.Name
		if name != "*" {
			name = id(name)
		}
		d.line("alias", pos, "name="+name, "asname="+optID(n.AsName))
	case *WithItem:
		d.line("withitem", "-")
		d.opt(n.ContextExpr, false)
		d.opt(n.OptionalVars, false)
	case *MatchCase:
		d.line("match_case", "-")
		d.opt(n.Pattern, false)
		d.opt(n.Guard, false)
		d.stmts(n.Body)
	case *MatchValue:
		d.line("MatchValue", pos)
		d.opt(n.Value, false)
	case *MatchSingleton:
		v := map[ConstKind]string{ConstNone: "None", ConstTrue: "True", ConstFalse: "False"}[n.Value]
		d.line("MatchSingleton", pos, "value="+v)
	case *MatchSequence:
		d.line("MatchSequence", pos)
		d.pats(n.Patterns)
	case *MatchMapping:
		d.line("MatchMapping", pos, "rest="+optID(n.Rest))
		d.exprs(n.Keys, false)
		d.pats(n.Patterns)
	case *MatchClass:
		var attrs []string
		for _, a := range n.KwdAttrs {
			attrs = append(attrs, id(a))
		}
		d.line("MatchClass", pos, "kwd_attrs="+strings.Join(attrs, ","))
		d.opt(n.Cls, false)
		d.pats(n.Patterns)
		d.pats(n.KwdPatterns)
	case *MatchStar:
		d.line("MatchStar", pos, "name="+optID(n.Name))
	case *MatchAs:
		d.line("MatchAs", pos, "name="+optID(n.Name))
		if n.Pattern != nil {
			d.node(n.Pattern, false)
		} else {
			d.sb.WriteString("nil\n")
		}
	case *MatchOr:
		d.line("MatchOr", pos)
		d.pats(n.Patterns)
	case *TypeVar:
		d.line("TypeVar", pos, "name="+id(n.Name))
		d.opt(n.Bound, false)
		d.opt(n.DefaultValue, false)
	case *ParamSpec:
		d.line("ParamSpec", pos, "name="+id(n.Name))
		d.opt(n.DefaultValue, false)
	case *TypeVarTuple:
		d.line("TypeVarTuple", pos, "name="+id(n.Name))
		d.opt(n.DefaultValue, false)
	default:
		d.line(fmt.Sprintf("%T", n), pos)
	}
}

func (d *dumper) comps(gs []*Comprehension) {
	for _, g := range gs {
		d.node(g, false)
	}
}

func (d *dumper) args(as []*Arg) {
	for _, a := range as {
		d.node(a, false)
	}
}

func (d *dumper) pats(ps []Pattern) {
	for _, p := range ps {
		d.node(p, false)
	}
}
