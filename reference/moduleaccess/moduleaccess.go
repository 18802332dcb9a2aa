// Package moduleaccess finds module-loader patterns in guest source before it
// runs: `import` declarations, dynamic `import()`, `import.meta` and
// `require(...)` (CM-EXEC-04). It tokenizes just enough JavaScript to skip
// strings, template text, comments and regular expressions, so identifiers and
// strings that merely contain the word "import" are allowed.
//
// This is a fast first line; the runtime also maps QuickJS's own "could not
// load module" error (reached through eval or new Function) to
// module_access_denied.
package moduleaccess

import "unicode"

// Finding names the offending pattern and its 1-based line.
type Finding struct {
	Pattern string
	Line    int
}

// Check returns the first module-loader pattern in src, if any.
func Check(src string) (Finding, bool) {
	s := scanner{src: []rune(src), line: 1}
	return s.run(0)
}

type scanner struct {
	src  []rune
	i    int
	line int
	// prevSig is the last significant token kind: 'i' identifier/number/
	// closing bracket (a following "/" divides), 'o' operator (it starts a
	// regular expression).
	prevSig  byte
	prevWord string
}

func (s *scanner) peekNonSpace(from int) rune {
	for j := from; j < len(s.src); j++ {
		if !unicode.IsSpace(s.src[j]) {
			return s.src[j]
		}
	}
	return 0
}

func (s *scanner) prevNonSpace(before int) rune {
	for j := before - 1; j >= 0; j-- {
		if !unicode.IsSpace(s.src[j]) {
			return s.src[j]
		}
	}
	return 0
}

// run scans code until EOF or, when depth > 0, until the `}` that closes a
// template substitution.
func (s *scanner) run(depth int) (Finding, bool) {
	braces := 0
	s.prevSig = 'o'
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.line++
			s.i++
		case unicode.IsSpace(c):
			s.i++
		case c == '/' && s.i+1 < len(s.src) && s.src[s.i+1] == '/':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case c == '/' && s.i+1 < len(s.src) && s.src[s.i+1] == '*':
			s.i += 2
			for s.i < len(s.src) && !(s.src[s.i] == '*' && s.i+1 < len(s.src) && s.src[s.i+1] == '/') {
				if s.src[s.i] == '\n' {
					s.line++
				}
				s.i++
			}
			s.i += 2
		case c == '\'' || c == '"':
			s.skipString(c)
			s.prevSig = 'i'
		case c == '`':
			if f, ok := s.template(depth); ok {
				return f, true
			}
			s.prevSig = 'i'
		case c == '/' && s.prevSig == 'o':
			s.skipRegexp()
			s.prevSig = 'i'
		case isIdentStart(c):
			start := s.i
			for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
				s.i++
			}
			word := string(s.src[start:s.i])
			afterDot := s.prevNonSpace(start) == '.' && !(start >= 3 && string(s.src[start-3:start]) == "...")
			next := s.peekNonSpace(s.i)
			switch {
			case word == "import" && !afterDot && next != ':':
				pat := "import"
				if next == '(' {
					pat = "import()"
				} else if next == '.' {
					pat = "import.meta"
				}
				return Finding{Pattern: pat, Line: s.line}, true
			case word == "require" && !afterDot && next == '(':
				return Finding{Pattern: "require()", Line: s.line}, true
			}
			s.prevSig = 'i'
			switch word {
			case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await":
				s.prevSig = 'o'
			}
		case c >= '0' && c <= '9':
			for s.i < len(s.src) && (isIdentPart(s.src[s.i]) || s.src[s.i] == '.') {
				s.i++
			}
			s.prevSig = 'i'
		case c == '{':
			braces++
			s.i++
			s.prevSig = 'o'
		case c == '}':
			if depth > 0 && braces == 0 {
				s.i++
				return Finding{}, false
			}
			braces--
			s.i++
			s.prevSig = 'i'
		case c == ')' || c == ']':
			s.i++
			s.prevSig = 'i'
		default:
			s.i++
			s.prevSig = 'o'
		}
	}
	return Finding{}, false
}

func (s *scanner) skipString(q rune) {
	s.i++
	for s.i < len(s.src) && s.src[s.i] != q {
		if s.src[s.i] == '\\' {
			s.i++
		}
		if s.i < len(s.src) && s.src[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
	s.i++
}

// template skips template text and scans each ${...} substitution as code.
func (s *scanner) template(depth int) (Finding, bool) {
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '`' {
		switch {
		case s.src[s.i] == '\\':
			s.i += 2
		case s.src[s.i] == '$' && s.i+1 < len(s.src) && s.src[s.i+1] == '{':
			s.i += 2
			if f, ok := s.run(depth + 1); ok {
				return f, true
			}
		default:
			if s.src[s.i] == '\n' {
				s.line++
			}
			s.i++
		}
	}
	s.i++
	return Finding{}, false
}

func (s *scanner) skipRegexp() {
	s.i++
	inClass := false
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		c := s.src[s.i]
		if c == '\\' {
			s.i += 2
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == ']' {
			inClass = false
		} else if c == '/' && !inClass {
			s.i++
			break
		}
		s.i++
	}
	for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
		s.i++
	}
}

func isIdentStart(c rune) bool {
	return c == '_' || c == '$' || unicode.IsLetter(c)
}

func isIdentPart(c rune) bool {
	return isIdentStart(c) || unicode.IsDigit(c) || c == '\u200c' || c == '\u200d'
}
