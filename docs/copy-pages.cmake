# Copies the ODS-generated reference pages (PAGES, separated by |) into DEST, each
# through a temporary file renamed over the page: a reader of docs/generated
# sees the old page or the new one, never a part.
# Usage: cmake "-DPAGES=a.md|b.md" -DDEST=dir -P copy-pages.cmake
string(REPLACE "|" ";" PAGES "${PAGES}")
file(MAKE_DIRECTORY "${DEST}")
foreach(page IN LISTS PAGES)
  get_filename_component(name "${page}" NAME)
  set(temporary "${DEST}/.${name}.tmp")
  file(COPY_FILE "${page}" "${temporary}" RESULT failed)
  if(failed)
    file(REMOVE "${temporary}")
    message(FATAL_ERROR "cannot copy ${page} to ${DEST}: ${failed}")
  endif()
  file(RENAME "${temporary}" "${DEST}/${name}")
endforeach()
