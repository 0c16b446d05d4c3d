package adaptercases

import "slices"

// SortedNames are the names of items (a list's tools, prompts), as name
// reads them, sorted: what a list answered, whatever its order or SDK.
func SortedNames[T any](items []T, name func(T) string) []string {
	var names []string
	for _, it := range items {
		names = append(names, name(it))
	}
	slices.Sort(names)
	return names
}
