# bash completion for clua (installed as share/bash-completion/completions/clua).
# The first word: an experiment or tool (clua list --names), an option, or a
# script file; after an experiment, its options (from its --help) and files.
_clua() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi
  local clua=${words[0]} i sub=
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      -e|-l) ((i++)) ;;
      -*) ;;
      *) sub=${words[i]}; break ;;
    esac
  done
  if [[ -z $sub ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W '-e -i -l -v -E -W --devices --help --' -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$("$clua" list --names 2>/dev/null)" -- "$cur"))
      COMPREPLY+=($(compgen -f -X '!*.lua' -- "$cur") $(compgen -d -- "$cur"))
    fi
    return
  fi
  if [[ $sub == help ]]; then
    ((cword == i + 1)) && COMPREPLY=($(compgen -W "$("$clua" list --names 2>/dev/null)" -- "$cur"))
    return
  fi
  if [[ $cur == -* && $sub != */* && $sub != *.lua ]]; then
    local opts
    opts=$("$clua" help "$sub" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _clua clua
