package pyast

import (
	"fmt"
	"strings"
)

// sexpr prints a tree compactly for table tests: Kind[scalars](children),
// children in source order (as Inspect visits them); a name is written
// bare (with :Store or :Del when not loaded), a constant as a Go literal.
func sexpr(n Node) string {
	var sb strings.Builder
	writeSexpr(&sb, n)
	return sb.String()
}

func writeSexpr(sb *strings.Builder, n Node) {
	var kind string
	var scalars []string
	switch n := n.(type) {
	case *Name:
		sb.WriteString(n.Id)
		if n.Ctx != Load {
			sb.WriteString(":" + n.Ctx.String())
		}
		return
	case *Constant:
		switch n.Kind {
		case ConstStr:
			fmt.Fprintf(sb, "%q", n.Value)
		case ConstBytes:
			fmt.Fprintf(sb, "b%q", n.Value)
		case ConstNone:
			sb.WriteString("None")
		case ConstTrue:
			sb.WriteString("True")
		case ConstFalse:
			sb.WriteString("False")
		case ConstEllipsis:
			sb.WriteString("...")
		default:
			sb.WriteString(n.Value)
		}
		return
	case *Module:
		kind = "Module"
	case *FunctionDef:
		kind = "FunctionDef"
		if n.IsAsync {
			kind = "AsyncFunctionDef"
		}
		scalars = []string{n.Name}
	case *ClassDef:
		kind, scalars = "ClassDef", []string{n.Name}
	case *For:
		kind = "For"
		if n.IsAsync {
			kind = "AsyncFor"
		}
	case *With:
		kind = "With"
		if n.IsAsync {
			kind = "AsyncWith"
		}
	case *Try:
		kind = "Try"
		if n.IsStar {
			kind = "TryStar"
		}
	case *ExprStmt:
		kind = "Expr"
	case *AugAssign:
		kind, scalars = "AugAssign", []string{n.Op.String()}
	case *AnnAssign:
		kind = "AnnAssign"
		if n.Simple {
			scalars = []string{"simple"}
		}
	case *ImportFrom:
		kind, scalars = "ImportFrom", []string{strings.Repeat(".", n.Level) + n.Module}
	case *Alias:
		kind, scalars = "Alias", []string{n.Name}
		if n.AsName != "" {
			scalars = append(scalars, "as "+n.AsName)
		}
	case *Global:
		kind, scalars = "Global", n.Names
	case *Nonlocal:
		kind, scalars = "Nonlocal", n.Names
	case *BoolOp:
		kind, scalars = "BoolOp", []string{n.Op.String()}
	case *BinOp:
		kind, scalars = "BinOp", []string{n.Op.String()}
	case *UnaryOp:
		kind, scalars = "UnaryOp", []string{n.Op.String()}
	case *Compare:
		kind = "Compare"
		for _, o := range n.Ops {
			scalars = append(scalars, o.String())
		}
	case *FormattedValue:
		kind = "FormattedValue"
		if n.Conversion != 0 {
			scalars = []string{string(n.Conversion)}
		}
	case *Attribute:
		kind, scalars = "Attribute", []string{n.Attr}
		if n.Ctx != Load {
			scalars = append(scalars, n.Ctx.String())
		}
	case *Subscript, *Starred, *List, *Tuple:
		kind = strings.TrimPrefix(fmt.Sprintf("%T", n), "*pyast.")
		var ctx ExprContext
		switch n := n.(type) {
		case *Subscript:
			ctx = n.Ctx
		case *Starred:
			ctx = n.Ctx
		case *List:
			ctx = n.Ctx
		case *Tuple:
			ctx = n.Ctx
		}
		if ctx != Load {
			scalars = []string{ctx.String()}
		}
	case *Comprehension:
		kind = "Comprehension"
		if n.IsAsync {
			scalars = []string{"async"}
		}
	case *ExceptHandler:
		kind = "ExceptHandler"
		if n.Name != "" {
			scalars = []string{n.Name}
		}
	case *Arg:
		kind, scalars = "Arg", []string{n.Arg}
	case *Arguments:
		kind = "Arguments"
		for _, a := range n.PosOnlyArgs {
			scalars = append(scalars, a.Arg)
		}
		if len(n.PosOnlyArgs) > 0 {
			scalars = append(scalars, "/")
		}
		for _, a := range n.Args {
			scalars = append(scalars, a.Arg)
		}
		if n.VarArg != nil {
			scalars = append(scalars, "*"+n.VarArg.Arg)
		} else if len(n.KwOnlyArgs) > 0 {
			scalars = append(scalars, "*")
		}
		for _, a := range n.KwOnlyArgs {
			scalars = append(scalars, a.Arg)
		}
		if n.KwArg != nil {
			scalars = append(scalars, "**"+n.KwArg.Arg)
		}
	case *Keyword:
		kind = "Keyword"
		if n.Arg != "" {
			scalars = []string{n.Arg}
		}
	case *MatchSingleton:
		kind = "MatchSingleton"
		scalars = []string{map[ConstKind]string{ConstNone: "None", ConstTrue: "True", ConstFalse: "False"}[n.Value]}
	case *MatchMapping:
		kind = "MatchMapping"
		if n.Rest != "" {
			scalars = []string{"**" + n.Rest}
		}
	case *MatchClass:
		kind, scalars = "MatchClass", n.KwdAttrs
	case *MatchStar:
		kind, scalars = "MatchStar", []string{n.Name}
	case *MatchAs:
		kind = "MatchAs"
		if n.Name != "" {
			scalars = []string{n.Name}
		}
	case *TypeVar:
		kind, scalars = "TypeVar", []string{n.Name}
	case *ParamSpec:
		kind, scalars = "ParamSpec", []string{n.Name}
	case *TypeVarTuple:
		kind, scalars = "TypeVarTuple", []string{n.Name}
	default:
		kind = strings.TrimPrefix(fmt.Sprintf("%T", n), "*pyast.")
	}
	sb.WriteString(kind)
	if len(scalars) > 0 {
		sb.WriteString("[" + strings.Join(scalars, " ") + "]")
	}
	kids := Children(n)
	if len(kids) == 0 {
		return
	}
	sb.WriteByte('(')
	for i, k := range kids {
		if i > 0 {
			sb.WriteByte(' ')
		}
		writeSexpr(sb, k)
	}
	sb.WriteByte(')')
}
